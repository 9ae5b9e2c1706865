/// Byte counts as people read them ("1 MiB", "3.5 GiB", "512 bytes"). Stateless.
enum ByteCount {
    static func describe(_ bytes: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard bytes >= 1024 else { return "\(bytes) bytes" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let rounded = (value * 10).rounded() / 10
        let text = rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
        return text + " " + units[unit]
    }
}
