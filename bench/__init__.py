"""`make bench`: pgaq's figures beside raw-SQL floors measured in the same run."""
