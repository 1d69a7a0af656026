"""papersearch-admin's exit codes, one definition for every command (docs/operations.md "Exit codes")."""

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_REJECTS = 0, 1, 2, 3
