// Nothing to call: linking this target into a test binary is all it takes (see WholeDirectoryEntries.c).
