"""Run one command and print its wall time and peak resident memory as JSON (Linux: os.wait4).

Usage: python3 bench/measure.py CMD [ARGS...]   -> {"wall_ms", "cpu_ms" (user+sys), "maxrss_kib", "status"}
The command's stdout/stderr are passed through to files given by MEASURE_STDOUT / MEASURE_STDERR
(default: discarded). Wall time runs from just before fork to the child's exit, so this wrapper's
own start-up is not counted.
"""
import json
import os
import subprocess
import sys
import time

out = open(os.environ.get("MEASURE_STDOUT", os.devnull), "wb")
err = open(os.environ.get("MEASURE_STDERR", os.devnull), "wb")
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=out, stderr=err)
_, status, usage = os.wait4(p.pid, 0)
wall = (time.perf_counter() - t0) * 1000
cpu = (usage.ru_utime + usage.ru_stime) * 1000
print(json.dumps({"wall_ms": round(wall, 2), "cpu_ms": round(cpu, 2), "maxrss_kib": usage.ru_maxrss, "status": os.waitstatus_to_exitcode(status)}))
