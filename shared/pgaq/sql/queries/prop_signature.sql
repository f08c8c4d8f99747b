-- A queue's payload type, for the structural equivalence check. $1 queue
SELECT aq.queue_signature($1)
