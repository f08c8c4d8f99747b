-- ? topic (true) or queue, ? lease, ? schema (NULL: the user's): "schema.name"
SELECT aq.jms_create_temporary(?, ?, ?)
