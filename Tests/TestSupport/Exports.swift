// SplitMix64, which many tests draw from, lives with the package's other basics; tests get it with TestSupport.
@_exported import KeelBasics
