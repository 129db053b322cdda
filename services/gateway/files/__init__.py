"""Files: uploads, in-place updates, quota, the formats accepted and the documents read."""
