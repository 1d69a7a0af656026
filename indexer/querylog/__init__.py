"""The query log for admins: the report of what people searched for (report.py), and the report and
querylog prune commands (commands.py)."""
