"""The site's backups: its snapshot repository (repository.py), taking a snapshot and retention (backup.py),
restoring one (restore.py, which merges query-log days the cluster has: querylog_merge.py), and the backup,
backups and restore commands (commands.py)."""
