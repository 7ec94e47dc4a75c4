"""HTTP plumbing shared by every public blueprint: the gate, responses, source tracking."""
