-- tasks.sql - the tasks the capture knows, with when they were seen and their parent.
-- events: sched:sched_switch
-- usage: pp-analyze CAPTURE sql -e sched:sched_switch --query "$(cat tasks.sql)"
SELECT t.tid, t.pid, t.ppid, t.comm, p.comm AS parent, t.events,
       (t.last_seen - t.first_seen) / 1000000 AS seen_ms
FROM tasks t LEFT JOIN tasks p ON p.tid = t.ppid
WHERE t.events > 0 ORDER BY t.events DESC LIMIT 20;
