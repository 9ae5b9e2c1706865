import Foundation

/// Waits for `condition` to hold, checking every few milliseconds, up to a generous deadline:
/// tests poll for what they expect instead of sleeping for a guessed time.
/// Returns whether the condition held in time.
@discardableResult
public func poll(timeout: Double = 30, every interval: Double = 0.01, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: interval)
    }
    return try condition()
}
