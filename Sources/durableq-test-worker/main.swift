// Helper for tests that need a second process on the same file. Not a product.
//
//   durableq-test-worker enqueue PATH COUNT   enqueues COUNT jobs one transaction each, printing "ready" first
import DurableQueue
