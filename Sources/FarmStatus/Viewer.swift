import FarmSpool
import FarmSystem

/// The app's viewer as a question (`farm show`): where is the display image of one resource, and
/// if there is none yet, why. Stateless.
public enum Viewer {
    /// The absolute path of the display image of resource `index` of `list`; otherwise throws a
    /// one-line reason ("resource 3 of Set 1.json is still downloading (45%)").
    public static func image(_ spool: Spool, list: PublishedList, index: Int) throws(StatusError) -> String {
        let name = list.record.name, total = list.record.total
        guard index >= 0, index < total else {
            throw StatusError(.noSuchResource, total == 0 ? "\(name) has no resources"
                : "\(name) has \(total) resource(s): INDEX goes from 0 to \(total - 1), not \(index)")
        }
        guard let resource = ListView.resource(spool, listID: list.id, index: index) else {
            throw StatusError(.noSuchResource, "\(name) is no longer in the spool")
        }
        let subject = "resource \(index) of \(name)"
        // A resource that waits on a farm that does not run, or is paused, says so and what frees it.
        let stall = [.queued, .downloading].contains(resource.status) ? Stall.of(spool) : nil
        let held = stall.map { "; \($0)" } ?? ""
        switch resource.status {
        case .queued:
            throw StatusError(.notReady, "\(subject) is queued" + held)
        case .downloading:
            let progress = ResourceStatus.percent(bytes: resource.bytes, size: resource.size).map { "\($0)%" }
                ?? "\(resource.bytes) bytes so far"
            if stall == .paused { throw StatusError(.notReady, "\(subject) is paused at \(progress): farm resume") }
            throw StatusError(.notReady, "\(subject) is still downloading (\(progress))" + held)
        case .unzipping, .rendering:
            throw StatusError(.notReady, "\(subject) is still \(resource.status.rawValue)")
        case .error:
            throw StatusError(.resourceFailed, "\(subject) failed: \(resource.error ?? "unknown")")
        case .done:
            guard let image = resource.image else { throw StatusError(.noImage, "\(subject) is done but has no display image") }
            guard FileSystem.exists(image) else {
                throw StatusError(.noImage, "the image of \(subject) is missing (\(image)): `farm reload` makes it again")
            }
            return image
        }
    }
}
