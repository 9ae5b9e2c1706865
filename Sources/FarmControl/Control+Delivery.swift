import FarmLists
import FarmSpool
import FarmSystem
import Foundation

extension Control {
    /// The delivery of `farm add --out DIR [--name TEMPLATE]` (SPEC §12), checked: the template parses and
    /// tells resources apart, and DIR (made if missing, kept as an absolute path) takes a new file.
    /// Throws `.badDelivery` with one sentence.
    public static func delivery(folder: String, template: String?) throws(ControlError) -> Delivery {
        let template = template ?? DeliveryTemplate.defaultText
        do { _ = try DeliveryTemplate(template) } catch { throw ControlError(.badDelivery, error.description) }
        let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        do {
            try FileManager.default.createDirectory(atPath: absolute, withIntermediateDirectories: true)
        } catch {
            throw ControlError(.badDelivery, "cannot make the folder \(folder): \((error as NSError).localizedDescription)")
        }
        let probe = absolute + "/.farm-probe-\(getpid())"
        do {
            try FileSystem.createFile(probe, [])
            try FileSystem.unlink(probe)
        } catch {
            throw ControlError(.badDelivery, "cannot write in the folder \(folder): \(error)")
        }
        let real = (try? FileSystem.realPath(absolute)) ?? absolute
        return Delivery(folder: real, template: template)
    }
}
