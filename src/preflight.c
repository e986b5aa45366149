// SPDX-License-Identifier: MIT
/*
 * preflight.c - the checks made before anything is created (see
 * preflight.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "bpf_loader.h"
#include "preflight.h"
#include "target.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/* CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON, in the effective set. Not
 * just euid 0: root in a container or under a reduced bounding set may
 * lack them, and would fail only after the output was created. */
static int check_privileges(char *err, size_t errlen)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	uint64_t eff, bpf = 1ull << CAP_BPF, perfmon = 1ull << CAP_PERFMON;
	const char *missing;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data)) {
		snprintf(err, errlen,
			 "cannot read this process's capabilities (%s): run ftf-bpf with sudo",
			 strerror(errno));
		return -EPERM;
	}
	eff = (uint64_t)data[0].effective | ((uint64_t)data[1].effective << 32);
	if ((eff & (1ull << CAP_SYS_ADMIN)) || ((eff & bpf) && (eff & perfmon)))
		return 0;
	if (!(eff & bpf) && !(eff & perfmon))
		missing = "CAP_BPF and CAP_PERFMON";
	else if (!(eff & bpf))
		missing = "CAP_BPF";
	else
		missing = "CAP_PERFMON";
	snprintf(err, errlen,
		 "not permitted: loading BPF programs needs root or %s (missing %s); run it with sudo",
		 "CAP_BPF and CAP_PERFMON", missing);
	return -EPERM;
}

/* --freq above the kernel's limit would fail at perf_event_open, after
 * the output was created: say so first. */
static int check_freq(const struct cli_opts *o, char *err, size_t errlen)
{
	FILE *f;
	long max = 0;

	if (!o->stacks)
		return 0;
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &max) != 1)
		max = 0;
	fclose(f);
	if (max > 0 && o->freq_hz > (unsigned long)max) {
		snprintf(err, errlen,
			 "--freq %u is above kernel.perf_event_max_sample_rate (%ld): give --freq %ld or less, or raise the sysctl",
			 o->freq_hz, max, max);
		return -EINVAL;
	}
	return 0;
}

int preflight_system(const struct cli_opts *o, char *err, size_t errlen)
{
	int r = check_privileges(err, errlen);

	if (!r)
		r = ftfb_loader_check_btf(err, errlen);
	if (!r)
		r = check_freq(o, err, errlen);
	return r;
}

int preflight_target(struct cli_opts *o, char *main_bin, size_t len,
		     const char **mb, char *err, size_t errlen)
{
	*mb = NULL;
	if (o->pid) {
		int tgid;

		if (target_check_pid(o->pid, err, errlen))
			return -1;
		tgid = target_tgid(o->pid);
		if (tgid != o->pid) {
			if (!o->quiet)
				fprintf(stderr,
					"ftf-bpf: %d is a thread of process %d: tracing the process\n",
					o->pid, tgid);
			o->pid = tgid;
		}
	} else if (o->cmd) {
		if (target_resolve_cmd(o->cmd[0], main_bin, len, err, errlen))
			return -1;
		*mb = main_bin;
	}
	return 0;
}
