# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Read uring-convert's CSV tables with pandas defaults and check them."""
import os
import sys

import pandas as pd

d = sys.argv[1]
failures = 0


def read_tables(d):
    """Every table of d; *_ns columns must be int64 (a table without rows
    has no types to check: pandas gives every column of it object)."""
    global failures
    tables = {}
    for name in sorted(os.listdir(d)):
        if not name.endswith(".csv"):
            continue
        df = pd.read_csv(os.path.join(d, name))
        tables[name[:-4]] = df
        for col in df.columns:
            if len(df) and col.endswith("_ns") and str(df[col].dtype) != "int64":
                print(f"FAIL: {name}: column {col} is {df[col].dtype}, not int64")
                failures += 1
    return tables


tables = read_tables(d)
# A log older than format 3.1 names no files.
if len(tables["files"]) or tables["requests"]["file_path"].notna().sum():
    print("FAIL: files in a log of format 1.0")
    failures += 1

req = tables["requests"]
# The golden log's requests, as a pandas user would count them.
expect = {"complete": 9, "in_flight_at_end": 1, "incomplete": 1}
got = req["status"].value_counts().to_dict()
if got != expect:
    print(f"FAIL: requests.csv status counts {got}, want {expect}")
    failures += 1
if req.loc[req.opcode == "WRITE", "errno"].dropna().tolist() != ["ENOSPC", "ECANCELED"]:
    print("FAIL: WRITE errnos", req.loc[req.opcode == "WRITE", "errno"].tolist())
    failures += 1
if (req.submit_boot_ns - req.submit_ns).nunique() != 1:
    print("FAIL: submit_boot_ns - submit_ns is not one constant offset")
    failures += 1
tasks = tables["tasks"]
if sorted(tasks.comm.tolist()) != sorted(['db,server', 'io "fast"', 'iou-wrk-4000']):
    print("FAIL: tasks.csv comm", tasks.comm.tolist())
    failures += 1
ev = tables["events"]
if len(ev) != 45 or str(ev["boot_ns"].dtype) != "int64":
    print(f"FAIL: events.csv has {len(ev)} rows, boot_ns {ev['boot_ns'].dtype}")
    failures += 1
# The README example must work.
done = req[req.status == "complete"]
lat = done.groupby("opcode").latency_ns.describe(percentiles=[0.5, 0.99])
if lat.loc["NOP", "count"] != 2:
    print("FAIL: README example")
    failures += 1
# A log of format 3.1 (argv[2]): its files, as a pandas user would join them.
if len(sys.argv) > 2:
    t31 = read_tables(sys.argv[2])
    files, req31 = t31["files"], t31["requests"]
    if not len(files) or str(files["ino"].dtype) != "int64":
        print(f"FAIL: 3.1 files.csv: {len(files)} rows, ino {files['ino'].dtype if len(files) else '-'}")
        failures += 1
    per_file = req31.dropna(subset=["file_path"]).groupby("file_path").size()
    if per_file.to_dict() != files.set_index("path")["requests"].to_dict():
        print("FAIL: requests per file_path differ from files.csv requests")
        failures += 1
print(f"{len(tables)} tables read, {failures} failures")
sys.exit(1 if failures else 0)
