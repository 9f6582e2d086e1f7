// Package rooms is the domain of study rooms: a host opens a room, members join it by a short
// code, the host asks rounds of questions that members answer with one number each, members pin
// runs to a shared board, and the host exports the session at the end.
//
// The package holds the rules and nothing about transport or storage dialect: no HTTP, no SQL.
// A Service applies the rules on top of a Store, a small interface in the domain's own terms, so
// that the in-memory store here and the SQL stores built later answer to the same contract (the
// roomstest package checks it). A request reads its room once, at its edge (RoomByID or
// RoomByCode), resolves its key there (Identify) and hands the resulting Caller to every action;
// whatever may have changed since that read is checked again by the Store as it writes. Secrets never rest in a Store in the clear: only their SHA-256
// hashes are kept, and they are compared in constant time.
//
// The value a round is revealed against comes from outside (the server reruns an experiment),
// through a Measurer, so this package imports nothing of the site but the experiments' one way of
// writing numbers for people, which its refusals share with every other message.
package rooms
