"""The worker runtime: Kafka in, key-ordered concurrent handlers, exactly-once out.

How a record flows (``worker.Worker``):

1. Two 1-thread executors own the confluent_kafka Consumer/Producer (``kafka_io``): the
   asyncio loop polls through one, so rebalance callbacks run on that thread and can
   wait for the loop, and commits through the other (a lock keeps the two apart).
   Consumer: cooperative-sticky, ``enable.auto.commit=false``,
   ``enable.auto.offset.store=false``, ``read_committed``; producer ``murmur2_random``.
2. Each record is tracked in its partition's ``ledger`` and queued on a lane
   (``dispatch``): one lane per record key, lanes run concurrently up to
   ``concurrency``; backpressure pauses fetching and keeps polling.
3. ``processor`` decodes (size, UTF-8, JSON, schema: poison -> dead letter at once),
   calls the stage, retries transient errors with full-jitter backoff, and turns the
   result into output records — or into one dead letter (``dlq`` lists its headers).
4. Outputs are HELD in the ledger. When a commit is due (``cadence``) the committer takes each
   partition's contiguous finished prefix and, in Kafka-to-Kafka mode, commits it in one
   transaction (up to the consumer's position once nothing of the partition is in flight,
   so the upstream commit marker is stepped over and a drained group shows lag 0):
   produce the outputs and dead letters in offset order,
   ``send_offsets_to_transaction`` (group metadata: a zombie's stale generation is
   refused by the broker), commit. A failed transaction is aborted and the prefix is
   tried again; a revoked or lost partition is never committed again (assignment
   epochs). Postgres sinks (``output_topic is None``) record the offset in their own
   DB transaction (``streams.store.consumed_offsets``); the runtime commits their offsets
   on their own, or, with held outputs (dead letters, ``Routed`` events the handler
   returned), in one transaction with those outputs, as above.
5. SIGTERM: pause, drain in-flight up to ``shutdown_deadline_s``, final commit, close.
   Revocation: drain the revoked partitions (bounded), commit them, forget them.

Metrics (``metrics``) and JSON logs (``jsonlog``) per worker. The ``factstream worker``
command (streams/cli/worker.py) builds a stage from streams/pipeline.py and runs it here.
"""
