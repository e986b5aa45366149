// SPDX-License-Identifier: MIT
// The Node.js workload of test_runtimes.py: a JS-bound loop (fib under
// fibOuter under loop) JIT-compiled by V8, for SECS seconds or until the
// file STOP exists (looked at between two fibOuter calls).
// usage: node --perf-basic-prof fib.js SECS [STOP]
const fs = require("fs");

function fib(n) {
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
function fibOuter(n) {
	return fib(n);
}
function loop(secs, stop) {
	const end = Date.now() + secs * 1000;
	let s = 0;
	while (Date.now() < end && !(stop && fs.existsSync(stop)))
		s += fibOuter(25);
	return s;
}
console.log("sum", loop(Number(process.argv[2] || 3), process.argv[3]));
