-- wakeup-latency.sql - from sched_wakeup to the first switch to the woken task, per command.
-- events: sched:sched_wakeup,sched:sched_switch
-- usage: pp-analyze CAPTURE sql -e sched:sched_wakeup,sched:sched_switch --query "$(cat wakeup-latency.sql)"
-- The inner query finds the next switch-in with an index on next_pid narrowed by _time
-- (equal keys stay in time order), so the join costs O(wakeups * log(switches)).
-- Write "ORDER BY s2._time LIMIT 1" rather than min(s2._time): it stops at the first row.
SELECT w.comm, count(*) AS wakeups,
       avg(s._time - w._time) AS avg_ns, max(s._time - w._time) AS max_ns
FROM sched_wakeup w
JOIN sched_switch s ON s.next_pid = w.pid
 AND s._time = (SELECT s2._time FROM sched_switch s2
                WHERE s2.next_pid = w.pid AND s2._time >= w._time
                ORDER BY s2._time LIMIT 1)
GROUP BY w.comm
ORDER BY wakeups DESC
LIMIT 20;
