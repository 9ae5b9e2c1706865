// FarmRecords is the spool's vocabulary: a job's name, what its files and its list's table hold, its progress
// and its outcome. Every user of the spool reads and writes them, so whoever imports FarmSpool gets them with it,
// as the code of FarmSpool itself does; they live in a target of their own so that the protocol's code here is
// only the layout, the moves and the leased queue.
@_exported import FarmRecords
