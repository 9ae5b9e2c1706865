import FarmFixtures
import FarmTestSupport
import Foundation

extension TemporaryDirectory {
    /// Writes `bytes` to `name` in this directory and returns its path.
    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = appending(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Whether `pixel` is `colour` give or take `tolerance` in each channel (a JPEG's or a scaler's rounding).
func near(_ pixel: (red: UInt8, green: UInt8, blue: UInt8), _ colour: JPEGFixture.RGB, within tolerance: Int) -> Bool {
    abs(Int(pixel.red) - Int(colour.red)) <= tolerance && abs(Int(pixel.green) - Int(colour.green)) <= tolerance
        && abs(Int(pixel.blue) - Int(colour.blue)) <= tolerance
}
