"""Provisioning: the local Elasticsearch node (`papersearch-node`) and the Docker stack's one-shots (setup,
wait), with the roles and users both create. Stands on papersearch/; webapp/ and indexer/ never import it."""
