import dagster as dg

documents = dg.DynamicPartitionsDefinition(name="documents")
