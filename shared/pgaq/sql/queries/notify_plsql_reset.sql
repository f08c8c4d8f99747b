-- After every callback: nothing a procedure left in the session reaches the next one
DISCARD ALL
