// Placeholder until this target's first file lands.
