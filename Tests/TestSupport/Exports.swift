// SplitMix64, which many tests draw from, lives with the package's other basics; tests get it with TestSupport.
// The PostgreSQL server the shared limiter's tests run against.
@_exported import LocalPostgres
