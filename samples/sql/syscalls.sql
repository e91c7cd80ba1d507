-- syscalls.sql - system calls by name and by thread, names from the capture's table.
-- events: raw_syscalls:sys_enter
-- usage: pp-analyze CAPTURE sql -e raw_syscalls:sys_enter --query "$(cat syscalls.sql)"
SELECT syscall(id) AS name, count(*) AS calls, count(DISTINCT _tid) AS threads
FROM sys_enter GROUP BY id ORDER BY calls DESC LIMIT 20;
SELECT _tid AS tid, comm(_tid) AS comm, count(*) AS calls
FROM sys_enter GROUP BY _tid ORDER BY calls DESC LIMIT 10;
