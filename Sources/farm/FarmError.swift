/// A user's mistake or a refusal: ArgumentParser prints it as one line and exits non-zero.
struct FarmError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
