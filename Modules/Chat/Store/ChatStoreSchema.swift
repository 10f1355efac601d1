import GRDB
import Persistence

/// The tables of a ``ChatStore`` database, created by a `DatabaseMigrator` (one transaction per migration).
///
/// Times are whole milliseconds since 1970, so that a conversation's order is exact; a message's `sortKey` is its
/// server id, or its client message id until the server gave it one. `serverID` is unique, and so is a client message
/// id within one sender's messages to one conversation, as the server keeps it (SQLite lets NULLs repeat): what makes
/// every upsert idempotent, and what keeps one member's client id from ever matching another member's message.
enum ChatStoreSchema {
  /// The tables a chat store file has; a file with other tables and none of these is someone else's.
  static let tables: Set<String> = [
    "workspace", "conversation", "member", "message", "sync", "changeOutcome", "message_search",
    "message_search_data", "message_search_idx", "message_search_docsize", "message_search_config", "readPosition",
    "releasedFile", "searchBacklog",
  ]

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("chat-v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE workspace (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            ownerID TEXT NOT NULL
          ) WITHOUT ROWID;
          CREATE TABLE conversation (
            id TEXT PRIMARY KEY NOT NULL,
            workspaceID TEXT NOT NULL,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            joined INTEGER NOT NULL,
            ownerID TEXT,
            unreadCount INTEGER NOT NULL DEFAULT 0,
            lastViewedAt INTEGER NOT NULL DEFAULT 0,
            lastReadMessageID TEXT
          ) WITHOUT ROWID;
          CREATE INDEX conversation_workspace ON conversation(workspaceID, kind);
          CREATE TABLE member (
            scope TEXT NOT NULL,
            userID TEXT NOT NULL,
            nickname TEXT NOT NULL,
            profileURL TEXT,
            PRIMARY KEY (scope, userID)
          ) WITHOUT ROWID;
          CREATE TABLE message (
            rowid INTEGER PRIMARY KEY,
            serverID TEXT UNIQUE,
            clientMessageID TEXT,
            conversationID TEXT NOT NULL,
            senderID TEXT NOT NULL,
            text TEXT NOT NULL,
            images TEXT NOT NULL,
            createdAt INTEGER NOT NULL,
            sortKey TEXT NOT NULL,
            state TEXT NOT NULL,
            failureReason TEXT
          );
          CREATE INDEX message_order ON message(conversationID, createdAt, sortKey);
          CREATE UNIQUE INDEX message_client ON message(conversationID, senderID, clientMessageID);
          """)
    }
    // Where each conversation's last catch-up ended: the next one starts there (Documentation/Decisions/0013).
    migrator.registerMigration("chat-v2-sync") { db in
      try db.execute(
        sql: """
          CREATE TABLE sync (
            conversationID TEXT PRIMARY KEY NOT NULL,
            messageID TEXT NOT NULL
          ) WITHOUT ROWID;
          """)
    }
    // A member's email, which tells two members of one nickname apart (a nickname is anyone's to take).
    migrator.registerMigration("chat-v3-member-email") { db in
      try db.execute(sql: "ALTER TABLE member ADD COLUMN email TEXT")
    }
    // A message the server holds but this client could not take whole: shown as unavailable until a whole copy comes.
    migrator.registerMigration("chat-v4-unavailable") { db in
      try db.execute(sql: "ALTER TABLE message ADD COLUMN unavailable INTEGER NOT NULL DEFAULT 0")
    }
    // A message's number in its conversation, which tells a client what it missed.
    migrator.registerMigration("chat-v5-seq") { db in
      try db.execute(sql: "ALTER TABLE message ADD COLUMN seq INTEGER")
    }
    // How many members a channel has, which its list shows.
    migrator.registerMigration("chat-v6-member-count") { db in
      try db.execute(sql: "ALTER TABLE conversation ADD COLUMN memberCount INTEGER NOT NULL DEFAULT 0")
    }
    // What changes a message after it was sent, the number of its last change, and how far each conversation's
    // changes were caught up (Documentation/Decisions/0022).
    migrator.registerMigration("chat-v7-changes") { db in
      try db.execute(
        sql: """
          ALTER TABLE message ADD COLUMN editedAt INTEGER;
          ALTER TABLE message ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE message ADD COLUMN replyTo TEXT;
          ALTER TABLE message ADD COLUMN replyCount INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE message ADD COLUMN lastReplyID TEXT;
          ALTER TABLE message ADD COLUMN reactions TEXT NOT NULL DEFAULT '[]';
          ALTER TABLE message ADD COLUMN version INTEGER;
          CREATE INDEX message_thread ON message(conversationID, replyTo, createdAt, sortKey) WHERE replyTo IS NOT NULL;
          ALTER TABLE sync ADD COLUMN changeVersion INTEGER;
          CREATE TABLE changeOutcome (
            changeID TEXT PRIMARY KEY NOT NULL,
            refusal TEXT,
            serverCode TEXT,
            statusCode INTEGER,
            settledAt INTEGER NOT NULL
          ) WITHOUT ROWID;
          """)
    }
    // Full-text search of every stored message's text (SQLite FTS5, its index kept by triggers): words and prefixes
    // in any language's letters, without diacritics (Documentation/Decisions/0023).
    migrator.registerMigration("chat-v8-search") { db in
      try db.execute(
        sql: """
          CREATE VIRTUAL TABLE message_search USING fts5(
            text, content='message', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2'
          );
          INSERT INTO message_search(rowid, text) SELECT rowid, text FROM message;
          CREATE TRIGGER message_search_insert AFTER INSERT ON message BEGIN
            INSERT INTO message_search(rowid, text) VALUES (new.rowid, new.text);
          END;
          CREATE TRIGGER message_search_delete AFTER DELETE ON message BEGIN
            INSERT INTO message_search(message_search, rowid, text) VALUES ('delete', old.rowid, old.text);
          END;
          CREATE TRIGGER message_search_update AFTER UPDATE OF text ON message WHEN old.text IS NOT new.text BEGIN
            INSERT INTO message_search(message_search, rowid, text) VALUES ('delete', old.rowid, old.text);
            INSERT INTO message_search(rowid, text) VALUES (new.rowid, new.text);
          END;
          """)
    }
    // How far each member of a conversation has read, which a message's "read by" is counted from; whom a message
    // mentions, and how many unread messages mention the user.
    migrator.registerMigration("chat-v9-reads-and-mentions") { db in
      try db.execute(
        sql: """
          CREATE TABLE readPosition (
            conversationID TEXT NOT NULL,
            userID TEXT NOT NULL,
            messageID TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (conversationID, userID)
          ) WITHOUT ROWID;
          ALTER TABLE message ADD COLUMN mentions TEXT NOT NULL DEFAULT '[]';
          ALTER TABLE conversation ADD COLUMN unreadMentionCount INTEGER NOT NULL DEFAULT 0;
          """)
    }
    // The files a message carries beside its images; the server paths of the files of messages deleted (or gone with
    // their conversation), whose downloaded copies the account's file cache then forgets.
    migrator.registerMigration("chat-v10-files") { db in
      try db.execute(
        sql: """
          ALTER TABLE message ADD COLUMN files TEXT NOT NULL DEFAULT '[]';
          CREATE TABLE releasedFile (url TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
          CREATE TRIGGER message_files_deleted AFTER UPDATE OF files ON message
            WHEN old.files != '[]' AND new.deleted = 1 BEGIN
            INSERT OR IGNORE INTO releasedFile (url) SELECT json_extract(value, '$.url') FROM json_each(old.files);
          END;
          CREATE TRIGGER message_files_removed AFTER DELETE ON message WHEN old.files != '[]' BEGIN
            INSERT OR IGNORE INTO releasedFile (url) SELECT json_extract(value, '$.url') FROM json_each(old.files);
          END;
          """)
    }
    // The search index in the order of the results: each message has a search key, its time in milliseconds times
    // 2^20 plus its place among the messages of that millisecond, the index's row id, so that FTS5 itself orders
    // equal matches newest first; and the conversation as a column, so that a search of one conversation never reads
    // a message. The index holds no text of its own (contentless): the triggers give it what it indexes and what it
    // removes (Documentation/Decisions/0023).
    migrator.registerMigration("chat-v11-search-order") { db in
      try db.execute(
        sql: """
          DROP TRIGGER message_search_insert;
          DROP TRIGGER message_search_delete;
          DROP TRIGGER message_search_update;
          DROP TABLE message_search;
          ALTER TABLE message ADD COLUMN searchKey INTEGER;
          UPDATE message SET searchKey = keyed.key FROM (
            SELECT rowid AS row, base + row_number() OVER (PARTITION BY base ORDER BY sortKey) - 1 AS key
            FROM (SELECT rowid, sortKey, \(searchBase("createdAt")) AS base FROM message)
          ) AS keyed WHERE message.rowid = keyed.row;
          CREATE UNIQUE INDEX message_search_key ON message(searchKey);
          CREATE VIRTUAL TABLE message_search USING fts5(
            text, conversation, content='', tokenize='unicode61 remove_diacritics 2'
          );
          INSERT INTO message_search(rowid, text, conversation) SELECT searchKey, text, hex(conversationID) FROM message;
          CREATE TRIGGER message_search_insert AFTER INSERT ON message BEGIN
            UPDATE message SET searchKey = \(searchKey("new.createdAt")) WHERE rowid = new.rowid;
            INSERT INTO message_search(rowid, text, conversation)
              SELECT searchKey, text, hex(conversationID) FROM message WHERE rowid = new.rowid;
          END;
          CREATE TRIGGER message_search_delete AFTER DELETE ON message BEGIN
            INSERT INTO message_search(message_search, rowid, text, conversation)
              VALUES ('delete', old.searchKey, old.text, hex(old.conversationID));
          END;
          CREATE TRIGGER message_search_update AFTER UPDATE OF text, createdAt, conversationID ON message
            WHEN old.text IS NOT new.text OR old.createdAt IS NOT new.createdAt
              OR old.conversationID IS NOT new.conversationID BEGIN
            INSERT INTO message_search(message_search, rowid, text, conversation)
              VALUES ('delete', old.searchKey, old.text, hex(old.conversationID));
            UPDATE message SET searchKey = \(searchKey("new.createdAt"))
              WHERE rowid = new.rowid AND old.createdAt IS NOT new.createdAt;
            INSERT INTO message_search(rowid, text, conversation)
              SELECT searchKey, text, hex(conversationID) FROM message WHERE rowid = new.rowid;
          END;
          """)
    }
    // The search index is written once per transaction, not once per message: a stored or changed message's row id
    // waits in `searchBacklog`, and the transaction that stored it indexes every waiting row with one statement before
    // it commits (`ChatStore.indexBacklog`); a message deleted or changed before it was indexed takes nothing out of
    // the index. Indexed one row at a time by a trigger, a message cost two to three times as much to store.
    migrator.registerMigration("chat-v12-search-backlog") { db in
      try db.execute(
        sql: """
          CREATE TABLE searchBacklog (rowid INTEGER PRIMARY KEY NOT NULL);
          DROP TRIGGER message_search_insert;
          DROP TRIGGER message_search_delete;
          DROP TRIGGER message_search_update;
          CREATE TRIGGER message_search_insert AFTER INSERT ON message BEGIN
            UPDATE message SET searchKey = \(searchKey("new.createdAt")) WHERE rowid = new.rowid;
            INSERT INTO searchBacklog(rowid) VALUES (new.rowid);
          END;
          CREATE TRIGGER message_search_delete AFTER DELETE ON message BEGIN
            INSERT INTO message_search(message_search, rowid, text, conversation)
              SELECT 'delete', old.searchKey, old.text, hex(old.conversationID)
              WHERE NOT EXISTS (SELECT 1 FROM searchBacklog WHERE rowid = old.rowid);
            DELETE FROM searchBacklog WHERE rowid = old.rowid;
          END;
          CREATE TRIGGER message_search_update AFTER UPDATE OF text, createdAt, conversationID ON message
            WHEN old.text IS NOT new.text OR old.createdAt IS NOT new.createdAt
              OR old.conversationID IS NOT new.conversationID BEGIN
            INSERT INTO message_search(message_search, rowid, text, conversation)
              SELECT 'delete', old.searchKey, old.text, hex(old.conversationID)
              WHERE NOT EXISTS (SELECT 1 FROM searchBacklog WHERE rowid = new.rowid);
            UPDATE message SET searchKey = \(searchKey("new.createdAt"))
              WHERE rowid = new.rowid AND old.createdAt IS NOT new.createdAt;
            INSERT OR IGNORE INTO searchBacklog(rowid) VALUES (new.rowid);
          END;
          """)
    }
    // A message's search key is given by the insert that stores it (ChatStore.upsert), not set by its trigger after:
    // the trigger's update wrote the new row a second time, and its index entry, a fifth of a message's insert. An
    // insert without one (none in the store now) still gets one from the trigger.
    migrator.registerMigration("chat-v13-search-key-on-insert") { db in
      try db.execute(
        sql: """
          DROP TRIGGER message_search_insert;
          CREATE TRIGGER message_search_key AFTER INSERT ON message WHEN new.searchKey IS NULL BEGIN
            UPDATE message SET searchKey = \(searchKey("new.createdAt")) WHERE rowid = new.rowid;
          END;
          CREATE TRIGGER message_search_insert AFTER INSERT ON message BEGIN
            INSERT INTO searchBacklog(rowid) VALUES (new.rowid);
          END;
          """)
    }
    return migrator
  }

  /// The first search key of the millisecond `time` (an SQL expression): times beyond ±2^42 ms (139 years from 1970)
  /// share the last one.
  private static func searchBase(_ time: String) -> String {
    "(max(min(\(time), 4398046511104), -4398046511104) * 1048576)"
  }

  /// The next free search key of the millisecond `time` (an SQL expression), through the key's index: the store's
  /// insert gives it, and the triggers give it again when a time changes.
  static func searchKey(_ time: String) -> String {
    let base = searchBase(time)
    return
      "(SELECT coalesce(max(searchKey) + 1, \(base)) FROM message WHERE searchKey >= \(base) AND searchKey < \(base) + 1048576)"
  }
}

/// Persistence's error, not GRDB's deprecated alias of the same name: the store's files import both.
typealias PersistenceError = Persistence.PersistenceError
