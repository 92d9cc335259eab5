extension JobStoreReader {
    /// The waiting jobs (pending or scheduled) by kind and version, each with how many running
    /// workers run it (``WorkerPresence``). A worker whose rows name a process of this host that
    /// exists no more is not running, whenever it was last seen; so is a process of this host with
    /// this process's ID under a worker ID other than `currentWorkerID` (an earlier process).
    package func waitingJobCoverage(now: Int64, currentWorkerID: String? = nil) async throws -> [KindCoverage] {
        let rows = try await workerKinds()
        let workers = Array(Set(rows.map(\.workerID)))
        let gone = Set(LocalWorker.deadOwners(among: workers, currentWorkerID: currentWorkerID ?? ""))
        return WorkerPresence.coverage(of: try await waitingJobsByKind(), by: WorkerPresence.live(rows, now: now, gone: gone))
    }
}
