// The features' public API is written in the runtime's types (Reducer, Effect, Store): an app that imports Features
// gets them without a second import.
@_exported import ReducerRuntime
