import dagster as dg

documents = dg.DynamicPartitionsDefinition(name="documents")
# The tag Dagster puts on a run of one partition (documented among its run tags).
PARTITION_TAG = "dagster/partition"
