#!/usr/bin/env python3
"""Writes each pack's golden-month event log (<pack>.events.jsonl).

The logs are committed; this script is how they were made, so a reader can
see every gap at a glance. Heartbeats every 60 s; an outage [a, b) is a gap
whose last heartbeat is at a - 60 s (the next one was due at a) and whose
next heartbeat is at b. Run: python3 gen_events.py
"""
import json
from datetime import datetime, timedelta, timezone

IV = 60


def t(s, tz):
    return datetime.strptime(s, "%Y-%m-%d %H:%M").replace(tzinfo=tz)


def iso(d):
    return d.isoformat()


def runs(node, first, last, outages):
    """heartbeat_run events from first to last with the outages cut out."""
    evs, start = [], first
    for a, b in outages + [(last + timedelta(seconds=IV), None)]:
        end = a - timedelta(seconds=IV)
        n = int((end - start).total_seconds()) // IV + 1
        end = start + timedelta(seconds=(n - 1) * IV)  # on the run's own beat
        evs.append({"type": "heartbeat_run", "id": f"{node}/run@{start.strftime('%Y%m%dT%H%M%S')}", "node": node,
                    "at": iso(start), "last_at": iso(end), "received_at": iso(start + timedelta(seconds=1)),
                    "last_received_at": iso(end + timedelta(seconds=1)), "count": n, "heartbeat_interval_s": IV,
                    "max_gap_ms": IV * 1000, "max_delay_ms": 1000})
        start = b
    return evs


def reg(node, contract, gpus, model, ordered):
    return {"type": "node_registered", "id": f"reg-{node}", "node": node, "contract": contract,
            "ordered_at": iso(ordered), "hardware": {"gpu_model": model, "gpu_count": gpus}, "heartbeat_interval_s": IV}


def check(node, at, verdict):
    return {"type": "observation", "id": f"{node}/chk@{at.strftime('%Y%m%dT%H%M')}", "node": node, "kind": "check",
            "at": iso(at), "received_at": iso(at + timedelta(seconds=2)),
            "checks": [{"name": "gpu.count", "category": "gpu_lost", "verdict": verdict,
                        "value": "8" if verdict == "pass" else "7", "criterion": "8"}]}


def write(pack, evs):
    with open(f"{pack}.events.jsonl", "w") as f:
        for e in evs:
            f.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")


UTC = timezone.utc
CST = timezone(timedelta(hours=8))
CET = timezone(timedelta(hours=1))

# aws-ec2-instance: 5 h unreachable, 2 h of it inside maintenance announced
# two weeks ahead (AWS publishes no maintenance exclusion: it counts); 7 min
# unreachable inside one clock hour and 9 min across two (the six-minute
# clock-hour rule); an hour of a lost GPU that the connectivity-only SLA
# does not count.
n = "p5-01"
evs = [reg(n, "aws-ec2-instance", 8, "H100 SXM5 80GB", t("2026-02-27 09:00", UTC))]
evs += runs(n, t("2026-02-28 00:00", UTC), t("2026-04-01 06:00", UTC),
            [(t("2026-03-10 10:00", UTC), t("2026-03-10 15:00", UTC)), (t("2026-03-22 03:02", UTC), t("2026-03-22 03:09", UTC)),
             (t("2026-03-22 04:55", UTC), t("2026-03-22 05:04", UTC))])
for m, v in [(0, "fail"), (5, "fail"), (10, "fail"), (60, "pass"), (65, "pass")]:
    evs.append(check(n, t("2026-03-20 08:00", UTC) + timedelta(minutes=m), v))
evs.append({"type": "maintenance", "id": "mx-1", "node": n, "start": iso(t("2026-03-10 12:00", UTC)), "end": iso(t("2026-03-10 14:00", UTC)),
            "announced_at": iso(t("2026-02-24 12:00", UTC)), "at": iso(t("2026-02-24 12:00", UTC)), "summary": "host retirement"})
write("aws-ec2-instance", evs)

# gce-single-instance: 45 min, 1 h and 4 min 30 s unreachable (Google counts
# whole minutes of a Downtime Period: the last 30 s do not count). Google's
# month is Pacific time: heard until 1 April 12:00 UTC, past its 07:00 end.
n = "a3-01"
evs = [reg(n, "gce-single-instance", 8, "H100 SXM5 80GB", t("2026-02-27 09:00", UTC))]
evs += runs(n, t("2026-02-28 00:00", UTC), t("2026-04-01 12:00", UTC),
            [(t("2026-03-05 02:00", UTC), t("2026-03-05 02:45", UTC)), (t("2026-03-18 20:00", UTC), t("2026-03-18 21:00", UTC)),
             (t("2026-03-25 06:00", UTC), t("2026-03-25 06:04", UTC) + timedelta(seconds=30))])
write("gce-single-instance", evs)

# alibaba-ecs: 3 h unreachable on 5 March, Shanghai time.
n = "gn7-01"
evs = [reg(n, "alibaba-ecs", 8, "A100 SXM4 80GB", t("2026-02-27 09:00", CST))]
evs += runs(n, t("2026-02-28 00:00", CST), t("2026-04-01 06:00", CST), [(t("2026-03-05 14:00", CST), t("2026-03-05 17:00", CST))])
write("alibaba-ecs", evs)

# gpuhub-network: 20 min and 2 h of network failure on a 1-GPU instance in
# March; in April 40 min 59 s (40 whole minutes: one hour of voucher, where
# every second would make two) and 59 s (no whole minute: nothing), the
# latter on the :59 beat of the run before it, so the gap is 59 s exactly.
n = "4090-01"
evs = [reg(n, "gpuhub-network", 1, "RTX 4090", t("2026-02-27 09:00", UTC))]
evs += runs(n, t("2026-02-28 00:00", UTC), t("2026-05-01 06:00", UTC),
            [(t("2026-03-03 10:00", UTC), t("2026-03-03 10:20", UTC)), (t("2026-03-12 09:00", UTC), t("2026-03-12 11:00", UTC)),
             (t("2026-04-07 10:00", UTC), t("2026-04-07 10:40", UTC) + timedelta(seconds=59)),
             (t("2026-04-20 08:00", UTC) + timedelta(seconds=59), t("2026-04-20 08:01", UTC) + timedelta(seconds=58))])
write("gpuhub-network", evs)

# hostedai-gpu: 6 h down, ticket 1.5 h in; 1 h down that nobody reported;
# 2 h of maintenance announced 72 h ahead.
n = "h100-01"
evs = [reg(n, "hostedai-gpu", 8, "H100 SXM5 80GB", t("2026-02-27 09:00", UTC))]
evs += runs(n, t("2026-02-28 00:00", UTC), t("2026-04-01 06:00", UTC),
            [(t("2026-03-10 10:00", UTC), t("2026-03-10 16:00", UTC)), (t("2026-03-20 02:00", UTC), t("2026-03-20 03:00", UTC)),
             (t("2026-03-25 00:00", UTC), t("2026-03-25 02:00", UTC))])
evs.append({"type": "ticket_opened", "id": "T-7-open", "ticket": "T-7", "node": n, "at": iso(t("2026-03-10 11:30", UTC)),
            "priority": "P1", "summary": "instance unreachable over SSH"})
evs.append({"type": "ticket_provider_responded", "id": "T-7-resp", "ticket": "T-7", "at": iso(t("2026-03-10 12:00", UTC))})
evs.append({"type": "maintenance", "id": "mx-1", "node": n, "start": iso(t("2026-03-25 00:00", UTC)), "end": iso(t("2026-03-25 02:00", UTC)),
            "announced_at": iso(t("2026-03-22 00:00", UTC)), "at": iso(t("2026-03-22 00:00", UTC)), "summary": "host firmware"})
write("hostedai-gpu", evs)

# ucloud-sdu: delivered on 16 March, then 60 h unreachable, Copenhagen time
# (the DST change on 29 March is in the month's minutes).
n = "ucloud-gpu-01"
evs = [reg(n, "ucloud-sdu", 4, "A100 PCIe 40GB", t("2026-03-15 09:00", CET))]
evs += runs(n, t("2026-03-16 00:00", CET), t("2026-04-01 06:00", CET), [(t("2026-03-20 00:00", CET), t("2026-03-22 12:00", CET))])
write("ucloud-sdu", evs)

def two_months(pack, node, gpus, model, tz, outages, ordered="2026-02-27 09:00", first="2026-02-28 00:00"):
    """A node ordered 27 February and in service from 28 February 00:00 to
    1 May 06:00 (March and April whole), unreachable in each outage, given
    as ("YYYY-MM-DD HH:MM", "YYYY-MM-DD HH:MM[:SS]") pairs in zone tz. A
    later ordered/first delivers it within March instead."""
    def at(s):
        extra = int(s[17:]) if len(s) > 16 else 0
        return t(s[:16], tz) + timedelta(seconds=extra)
    evs = [reg(node, pack, gpus, model, t(ordered, tz))]
    evs += runs(node, t(first, tz), t("2026-05-01 06:00", tz), [(at(a), at(b)) for a, b in outages])
    write(pack, evs)


# tencent-cvm: two months at tier edges, Shanghai time. March: 5 + 7 = 12
# minutes (11 would meet 99.975 %); April: 7 h 13 min = 433 minutes (432
# would be exactly 99 %, the 10 % tier).
two_months("tencent-cvm", "gt4-01", 8, "A100 SXM4 40GB", CST,
           [("2026-03-08 03:00", "2026-03-08 03:05"), ("2026-03-21 14:00", "2026-03-21 14:07"),
            ("2026-04-15 09:00", "2026-04-15 16:13")])

# yandex-compute-vm: two months at tier edges, Moscow time. March: 23
# minutes (22 would meet 99.95 %); April: 36 h 1 min = 2,161 minutes
# (2,160 would be exactly 95 %, the 15 % tier).
MSK = timezone(timedelta(hours=3))
two_months("yandex-compute-vm", "y-gpu-01", 8, "A100 SXM4 80GB", MSK,
           [("2026-03-10 12:00", "2026-03-10 12:23"), ("2026-04-06 00:00", "2026-04-07 12:01")])

# jdcloud-vm: two months, Shanghai time. March: 4 min (under JD Cloud's
# 5-minute minimum: not counted), 5 min and 7 min (counted) → 12 minutes ×
# 100 at the hourly rate. April: 7 h 13 min 30 s, counted in whole minutes:
# 433, whose 100× credit (721.67 h of the rate) passes the month's 720 h
# charge: capped (432 minutes would reach it exactly).
two_months("jdcloud-vm", "jd-gpu-01", 8, "A100 SXM4 80GB", CST,
           [("2026-03-04 10:00", "2026-03-04 10:04"), ("2026-03-12 22:00", "2026-03-12 22:05"),
            ("2026-03-25 03:00", "2026-03-25 03:07"), ("2026-04-15 09:00", "2026-04-15 16:13:30")])

# jdcloud-dcps: two months, Shanghai time, 4 GPUs at 15.00 (60.00 an hour).
# March: 3 min (no minimum: counted) and 3 h 40 min = 223 minutes, 99.50045 %
# (224 would miss 99.5 %), 100 × 223 minutes of the rate either way. April:
# 7 h 11 min = 431 minutes, 100× is 43,100.00, just under the month's charge
# of 43,200.00 (432 minutes would reach the cap).
two_months("jdcloud-dcps", "dcps-01", 4, "L40S 48GB", CST,
           [("2026-03-06 08:00", "2026-03-06 08:03"), ("2026-03-19 01:00", "2026-03-19 04:40"),
            ("2026-04-22 13:00", "2026-04-22 20:11")])

# tencent-car: Tencent Cloud Application Rendering, one GPU rendering
# concurrency, Shanghai time. March: a 60 s outage (one missed heartbeat:
# "does not exceed one minute", not counted) and 7 h 27 min 40 s, counted
# in whole minutes rounded down: 447, 98.99866 % (446 would meet 99 %).
# April: 21 h 37 min 20 s → 1,297 minutes, 96.99769 % (1,296 would be
# exactly 97 %, the 5 % tier).
two_months("tencent-car", "car-01", 1, "CAR concurrency (GPU)", CST,
           [("2026-03-05 10:00", "2026-03-05 10:01"), ("2026-03-18 02:00", "2026-03-18 09:27:40"),
            ("2026-04-10 03:00", "2026-04-11 00:37:20")])

# tencent-intl-cvm: Tencent Cloud International CVM, Shanghai time, the
# SLA's own example of a term starting 17 March: ordered 16 March, first
# heartbeat 17 March 00:00, so March's Service Month is 17-31 March,
# 21,600 minutes. March: 6 min, 99.97222 % (5 would meet 99.975 %).
# April: 36 h 1 min = 2,161 minutes, 94.99769 % (2,160 would be exactly
# 95 %, the 25 % tier; the 2,161st moves the voucher to 100 %).
two_months("tencent-intl-cvm", "intl-gn7-01", 4, "T4 16GB", CST,
           [("2026-03-25 08:00", "2026-03-25 08:06"), ("2026-04-05 12:00", "2026-04-07 00:01")],
           ordered="2026-03-16 10:00", first="2026-03-17 00:00")

# coreweave-single-instance: one Single Instance of 8 H100 in one Region,
# UTC. March: 50 s (less than a minute: no Downtime Period), 4 h 0 min 10 s
# (240 whole minutes, the 10 s partial minute not counted) and 3 h 26 min:
# 446 minutes, 99.0009 %, met (447 would miss 99 %; every second counted,
# 26,820 s = 447 min, would). The 50 s outage puts the heartbeat on :50, so
# the second outage starts at 01:59:50 and ends on the minute. April: 2 h
# down inside a 6 h window announced two days ahead (excused), then 72 h
# 1 min = 4,321 minutes, 89.9977 % (4,320 would be exactly 90 %, 25 %; the
# 4,321st moves the credit to 50 %).
n = "cw-h100-01"
evs = [reg(n, "coreweave-single-instance", 8, "H100 SXM5 80GB", t("2026-02-27 09:00", UTC))]
evs += runs(n, t("2026-02-28 00:00", UTC), t("2026-05-01 06:00", UTC),
            [(t("2026-03-03 10:00", UTC), t("2026-03-03 10:00", UTC) + timedelta(seconds=50)),
             (t("2026-03-12 01:59", UTC) + timedelta(seconds=50), t("2026-03-12 06:00", UTC)),
             (t("2026-03-21 14:00", UTC), t("2026-03-21 17:26", UTC)),
             (t("2026-04-08 01:00", UTC), t("2026-04-08 03:00", UTC)),
             (t("2026-04-20 00:00", UTC), t("2026-04-23 00:01", UTC))])
evs.append({"type": "maintenance", "id": "mx-cw-1", "node": n, "start": iso(t("2026-04-08 00:00", UTC)), "end": iso(t("2026-04-08 06:00", UTC)),
            "announced_at": iso(t("2026-04-06 00:00", UTC)), "at": iso(t("2026-04-06 00:00", UTC)), "summary": "host firmware upgrade"})
write("coreweave-single-instance", evs)
