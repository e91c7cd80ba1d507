-- comm-switches.sql - context switches per command, busiest first.
-- events: sched:sched_switch
-- usage: pp-analyze CAPTURE sql -e sched:sched_switch --query "$(cat comm-switches.sql)"
SELECT prev_comm AS comm, count(*) AS switches,
       sum(prev_state = 0) AS preempted, sum(prev_state != 0) AS blocked
FROM sched_switch
GROUP BY prev_comm
ORDER BY switches DESC
LIMIT 20;
