// Download once (SPEC §7): the spool's stored results
// ===================================================
//
// A URL is transferred at most once while its result is valid, and equal bytes are stored once. This header
// says what download once adds to the spool's protocol (FarmSpool's PROTOCOL.md, read first).
//
//     blobs/<slot>       stored bytes: one more name of a downloaded file (the same inode), in the first
//                        free slot of its size (s<size>, s<size>-<sample>, <sha256>: BlobSlots.swift)
//     urls/<key>         a URL's valid result (URLRecord, JSON: url, blob, size, kind, validators), the
//                        text of a symbolic link (a file when too long); <key> is the SHA-256 of the URL
//     partial/u<key>     the URL's bytes so far; the flock on it is the URL's lock
//
// Publish (Blobs.swift). A worker that stored a download links it into the first free slot of its size,
// hashing only to compare with a slot's occupant of that size (BlobSlots.swift), and writes the URL's
// record. A record is created whole by symlink(2) (a record too long for a link's text is a file
// written in place: a reader that finds it empty or cut reads none and waits on the lock, which its
// writer holds); a record already there is replaced by rename. When a slot on the way
// holds those bytes (another URL, same bytes), the download gives way to a name of it (tmp/blob-*,
// renamed over the partial); a blob named by a SHA-256 of another size (cut by a power loss) is replaced
// by the download.
//
// The URL's lock (URLPartial.swift; the worker's side is FarmWorker's SharedDownload). A worker that
// claims a job opens or makes `partial/u<key>` and takes its flock without waiting; the file the name
// still holds (its inode checked after the lock: a holder renames it away as it stores it) is the URL's
// one transfer. Then it looks for the record (after the lock, so a new URL costs one look-up and a holder
// that published just before is seen):
// - a record whose blob is there: the file serves nobody and goes; the blob is linked as tmp/shared-*
//   (copied where a link fails), stored as the job's download, converted as usual, and the job completes
//   with `shared` in its outcome record, with no transfer;
// - none: the holder names its claim in the attribute `user.farm.holder`, transfers into the file,
//   publishes the record before it converts, and stores the file by rename, which ends the partial;
// - the lock held by another: it looks for the record and, while there is none, polls the lock every
//   50 ms (its lease renewed, its stop and lost flags looked at).
//
// Own URLs (FarmLists' URLSharing.swift). A job whose URL no other job named when it was added is marked
// own: in its first claim it makes the URL's partial with O_EXCL, locks it, and then neither looks for nor
// writes a record, nor names itself as holder; its bytes still take a slot in blobs/ (`storeBytes`). Every
// job added later for the URL waits while that one is claimed, and when it finds no record and the own job
// done, publishes the own job's output as the URL's record and is served from it.
//
// Deaths. A holder that dies leaves the file with its bytes: whoever takes the lock next resumes them by
// range, once for all who wait. A file that is also a name of stored bytes (a holder that died between
// publishing and storing, or a job handed back after its store, which links the output back here, never
// over another file) is never written: it goes and the taker starts over. A holder whose claim is gone
// while its lock is held (a stopped process) is waited for a lease at most; then its waiters transfer by
// themselves, each into its own `partial/<job>`, and publish nothing.
//
// Fresh. A job marked `fresh` (`farm add --fresh`; `farm reload` rewrites its done job file with the
// mark, staged as tmp/fresh-* and renamed over it, before it queues it) skips the record and starts the
// URL's bytes over unless they are its own job's, but takes the lock and publishes like any other.
//
// Clean-up. A failed job's partial goes before its completion; a resource removed or reloaded takes its
// URL's partial with it when nobody holds it; a served job removes what a holder killed after publishing
// left; `farm stop` (every process gone) sweeps the URL partials nobody can want (PartialSweep.swift).
//
// Removal (`removeOutput`). An output with more than one name is looked for in its slots (the same
// inode), else, when its bytes no longer name it (a power cut kept the names of a download but not all of
// its bytes, and the redo after the reboot deletes it), by its inode among its URL's record and blobs/.
// The blob whose last other name it is (a link count of 2) is collected first, then the output: a removal
// cut in between (a kill, or a power cut: ext4 keeps metadata in the order it was written) leaves an
// output of its own, which the removal taken up again deletes, never a blob no output names. Collected
// (a slot of level 1 or 2 keeps an empty marker) with the record of the output's URL when it names that
// blob (the callers that know the URL pass it: item rm, reload, retry, sync, a redo, fsck's repairs; an
// edit taken up again reads it from the list's table). Any other record of a collected blob names
// nothing (readers check the blob's size) until fsck deletes it. A worker linking a blob while it is
// collected keeps the bytes it linked, or finds none and downloads.
import FarmSpool

/// The spool's stored results: blobs, URL records and URL partials (the protocol above). A value
/// holding the spool's layout; any process or thread may make one and use it.
public struct Dedup: Sendable {
    public let spool: Spool

    public init(_ spool: Spool) { self.spool = spool }
}
