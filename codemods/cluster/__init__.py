"""Cluster configuration: TF_CONFIG, cluster specs and resolvers (TFD6xx)."""
