import Foundation

/// A folder of the fuzz run's own, emptied for each input: where targets that read files (zip archives,
/// zipped manifests) write the input and what they extract. One per process; libFuzzer runs one input
/// at a time.
public enum Scratch {
    public static let root: String = {
        let path = NSTemporaryDirectory() + "farm-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// A fresh, empty folder under `root`.
    public static func fresh(_ name: String) -> String {
        let path = root + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `bytes` written to `name` in a fresh folder; its path.
    public static func file(_ bytes: UnsafeRawBufferPointer, named name: String) -> String {
        let path = fresh(name + ".d") + "/" + name
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }
}
