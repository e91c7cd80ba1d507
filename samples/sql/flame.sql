-- flame.sql - folded stacks of a sampled event, ready for flamegraph.pl:
--   pp-analyze CAPTURE sql -e cpu-clock --format csv --query "$(cat flame.sql)" |
--       tail -n +2 | tr ',' ' ' | flamegraph.pl > cpu.svg
-- events: cpu-clock
SELECT comm(_tid) || ';' || stack_str(_stack) AS stack, count(*) AS samples
FROM "cpu-clock" WHERE _stack IS NOT NULL
GROUP BY _tid, _stack ORDER BY samples DESC;
