"""Files: uploads, in-place updates, quota, progress events, the formats accepted and the
documents read."""
