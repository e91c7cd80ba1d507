-- per-second.sql - with -i 1000: each second's switches and the busiest CPU.
-- events: sched:sched_switch
-- usage: pp-analyze CAPTURE sql -e sched:sched_switch -i 1000 --query "$(cat per-second.sql)"
SELECT count(*) AS switches, count(DISTINCT next_pid) AS tasks FROM sched_switch;
SELECT _cpu AS cpu, count(*) AS n FROM sched_switch GROUP BY _cpu ORDER BY n DESC LIMIT 1;
