/// Placeholder: the manifest reader lands here (issue 3).
public enum Manifest {}
