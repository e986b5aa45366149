// SPDX-License-Identifier: MIT
/*
 * translate_names.c - the names the translator writes: strings interned once
 * (or temporary slots once the ids run out), process and thread names and
 * command lines.
 */
#include <errno.h>
#include <string.h>

#include "translate_priv.h"
#include "proctree.h"
#include "process_order.h"

int ftfb_tr_flush_cmdlines(struct ftfb_translator *t, uint64_t ns)
{
	int name = ftfb_tr_str_id(t, "perfetto", 8, NULL);

	if (name < 0)
		return name;
	/* the strangers' group (process 0) listed after the traced
	 * processes, however long its threads ran: once, with the first
	 * name of a stranger (timed as it is) */
	if (t->strangers_named && !t->strangers_ranked) {
		int err = ftfb_process_order_last(
			t->w, name, ftfb_tr_perfetto_ns(t, ns), 0);

		if (err)
			return err;
		t->strangers_ranked = true;
	}
	return ftfb_proctree_flush(&t->ptree, t->w, name,
				   ftfb_tr_perfetto_ns(t, ns));
}

/*
 * A string id for s: the permanent id if s was interned; else interned
 * now; once the writer's ids run out, a temporary slot (round robin),
 * valid until num_temp_strs more temporary strings are written, i.e. for
 * the record written next. Never -ENOSPC.
 */
int ftfb_tr_str_id(struct ftfb_translator *t, const char *s, size_t len,
		   bool *temp)
{
	int id, n;

	if (temp)
		*temp = false;
	if (len == 0)
		return FTF_STRING_EMPTY;
	id = ftfb_pt_str_get(&t->pt, s, len);
	if (id > 0)
		return id;
	if (!t->ids_exhausted) {
		id = ftf_intern_string_len(t->w, s, len);
		if (id > 0) {
			t->st.records++;
			if (ftfb_pt_str_put(&t->pt, s, len, id))
				return -ENOMEM;
			return id;
		}
		if (id != -ENOSPC)
			return id;
		t->ids_exhausted = true;
	}
	n = ftf_num_temp_strs(t->w);
	if (n <= 0)
		return FTF_STRING_EMPTY;
	t->st.temp_strings++;
	if (temp)
		*temp = true;
	id = ftf_set_temp_string_slot_len(t->w, t->temp_next, s, len);
	t->temp_next = (t->temp_next + 1) % n;
	if (id > 0)
		t->st.records++;
	return id;
}

int ftfb_tr_cached_id(struct ftfb_translator *t, int *cache, const char *s)
{
	bool temp;
	int id;

	if (*cache > 0)
		return *cache;
	id = ftfb_tr_str_id(t, s, strlen(s), &temp);
	if (id > 0 && !temp)
		*cache = id;
	return id;
}

/* As ps -o args shows it: the title the process set (a name with a
 * space, see procfs.h), else its comm, completed from the cmdline when
 * truncated. */
static const char *process_name_of(const struct ftfb_task *k)
{
	if (k->pname[0] &&
	    (strlen(k->comm) == FTFB_COMM_LEN - 1 || strchr(k->pname, ' ')))
		return k->pname;
	return k->comm;
}

/* The process's command line for Perfetto (ProcessTree), now if the
 * trace has begun, else at its first event. */
int ftfb_tr_write_cmdline(struct ftfb_translator *t,
			  const struct ftfb_task_info *ti)
{
	int name, err;

	if (ti->tid != ti->tgid || !ti->cmdline_len)
		return 0;
	{
		struct ftfb_task *k = ftfb_pt_find(&t->pt, ti->tgid);

		if (k && !k->traced)
			return 0; /* (a stranger: no process) */
	}
	name = ftfb_tr_str_id(t, "perfetto", 8, NULL);
	if (name < 0)
		return name;
	err = ftfb_proctree_add(
		&t->ptree, t->w, name, ftfb_tr_perfetto_ns(t, t->last_ts),
		ti->tgid, 0, ti->cmdline,
		ti->cmdline_len < FTFB_CMDLINE_MAX ? ti->cmdline_len
						   : FTFB_CMDLINE_MAX);
	if (!err && t->last_ts)
		err = ftfb_tr_flush_cmdlines(t, t->last_ts);
	return err;
}

int ftfb_tr_write_process(struct ftfb_translator *t, struct ftfb_task *k)
{
	const char *name = process_name_of(k);
	int id, err;

	if (!name[0] || !k->traced)
		return 0; /* (a stranger: a thread of no process) */
	id = ftfb_tr_str_id(t, name, strlen(name), NULL);
	if (id < 0)
		return id;
	err = ftf_set_process_name(t->w, k->tgid, id);
	if (err < 0)
		return err;
	t->st.records++;
	return 0;
}

/* A task of no traced process: named as a thread of no process. */
static int write_stranger(struct ftfb_translator *t, struct ftfb_task *k)
{
	int blob = ftfb_tr_str_id(t, "perfetto", 8, NULL), err;
	struct ftfb_task *idle;

	if (blob < 0)
		return blob;
	/* Perfetto puts it in process 0: named for them first (the idle
	 * task's entry; entries do not move, k stays valid) */
	err = ftfb_tr_ensure_task(t, 0, 0, &idle);
	if (err)
		return err;
	t->strangers_named = true;
	err = ftfb_proctree_add_thread(
		&t->ptree, t->w, blob, ftfb_tr_perfetto_ns(t, t->last_ts),
		k->tid, k->comm, strnlen(k->comm, sizeof(k->comm)));
	if (!err && t->last_ts)
		err = ftfb_tr_flush_cmdlines(t, t->last_ts);
	k->named = true;
	return err;
}

int ftfb_tr_write_thread(struct ftfb_translator *t, struct ftfb_task *k)
{
	int id, err;

	if (!k->traced)
		return write_stranger(t, k);
	id = ftfb_tr_str_id(t, k->comm, strnlen(k->comm, sizeof(k->comm)),
			    NULL);
	if (id < 0)
		return id;
	err = ftf_set_thread_name(t->w, k->tgid, k->tid, id);
	if (err < 0)
		return err;
	t->st.records++;
	k->named = true;
	return 0;
}

/* n, less a UTF-8 character cut at the end of s[0..n) (the kernel cuts
 * a comm at 15 bytes, we cut names at their buffers' sizes): Perfetto
 * would show the bytes left as a replacement character. */
size_t ftfb_utf8_whole(const char *s, size_t n)
{
	size_t i = n, len;
	unsigned char c;

	/* back to the start of the last character (at most 3 bytes back) */
	while (i > 0 && n - i < 4 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0)
		return n; /* not UTF-8: left as it is */
	c = (unsigned char)s[i - 1];
	if (c < 0x80)
		return n; /* ASCII last: whole */
	len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	return n - (i - 1) >= len ? n : i - 1;
}

void ftfb_tr_set_comm(char *dst, const char *src)
{
	size_t n = ftfb_utf8_whole(src, strnlen(src, FTFB_COMM_LEN - 1));

	memcpy(dst, src, n);
	dst[n] = '\0';
}

void ftfb_tr_set_pname(char *dst, const char *src)
{
	size_t n = ftfb_utf8_whole(src, strnlen(src, FTFB_PT_PNAME_LEN - 1));

	memcpy(dst, src, n);
	dst[n] = '\0';
}
