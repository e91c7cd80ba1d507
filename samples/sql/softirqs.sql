-- softirqs.sql - softirqs per CPU, named by the print format's __print_symbolic() table.
-- events: irq:softirq_entry
-- usage: pp-analyze CAPTURE sql -e irq:softirq_entry --query "$(cat softirqs.sql)"
SELECT _cpu AS cpu, symbolic('softirq_entry.vec', vec) AS softirq, count(*) AS n
FROM softirq_entry GROUP BY _cpu, vec ORDER BY cpu, n DESC;
