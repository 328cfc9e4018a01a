package io.github.gaminghub.plugin;

import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Events the hub could not take yet, on disk, in the format every SDK port shares
 * (plugin-sdk/vectors/spool.json): one file per batch ("segment") named by a 12-digit sequence number,
 * one wire event per line. A segment is written to {@code <name>.tmp} and renamed, so it is whole or
 * absent; it is deleted once the hub has settled it. At most {@code maxEvents} are kept: appending past
 * that drops the oldest events first (whole segments, or the oldest lines of one, rewritten).
 *
 * <p>Only the sender thread changes it; the lock guards what {@link HubPlugin#counters} reads.
 */
final class Spool {
  private static final Pattern NAME = Pattern.compile("\\d{12}\\.jsonl");

  /** A batch read back from the spool. */
  record Segment(long seq, List<String> events) {}

  private final Path dir;
  private final long maxEvents;
  private final TreeMap<Long, Integer> segments = new TreeMap<>();
  private final long found;
  private final long damaged;
  private long size;
  private long nextSeq;

  Spool(Path dir, long maxEvents) throws IOException {
    this.dir = dir;
    this.maxEvents = maxEvents;
    Files.createDirectories(dir);
    long bad = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path p : files) {
        String name = p.getFileName().toString();
        if (NAME.matcher(name).matches()) {
          segments.put(Long.parseLong(name.substring(0, 12)), 0);
        } else if (name.endsWith(".jsonl.tmp")) {
          Files.deleteIfExists(p); // a write that never finished: never renamed, never counted
        }
      }
    }
    for (long seq : new ArrayList<>(segments.keySet())) {
      List<String> lines = Files.readAllLines(path(seq), StandardCharsets.UTF_8);
      List<String> good = new ArrayList<>(lines.size());
      for (String line : lines) {
        if (isEvent(line)) {
          good.add(line);
        } else if (!line.isEmpty()) {
          bad++;
        }
      }
      if (good.isEmpty()) {
        Files.deleteIfExists(path(seq));
        segments.remove(seq);
        continue;
      }
      segments.put(seq, good.size());
      size += good.size();
    }
    found = size;
    damaged = bad;
    nextSeq = segments.isEmpty() ? 1 : segments.lastKey() + 1;
  }

  private static boolean isEvent(String line) {
    try {
      JsonElement e = JsonParser.parseString(line);
      return e.isJsonObject() && e.getAsJsonObject().has("client_id")
          && e.getAsJsonObject().get("client_id").isJsonPrimitive()
          && e.getAsJsonObject().get("client_id").getAsJsonPrimitive().isString();
    } catch (JsonParseException e) {
      return false;
    }
  }

  /** Events found when the spool was opened (a restart's backlog). */
  long found() {
    return found;
  }

  /** Damaged lines skipped when the spool was opened. */
  long damaged() {
    return damaged;
  }

  synchronized long size() {
    return size;
  }

  /** The segment files, oldest first (for tests). */
  synchronized List<String> names() {
    return segments.keySet().stream().map(s -> String.format("%012d.jsonl", s)).toList();
  }

  /**
   * Appends {@code events} (oldest first) as one segment, first dropping the oldest events the bound
   * leaves no room for.
   *
   * @return how many events were dropped
   */
  long append(List<String> events) throws IOException {
    if (events.isEmpty()) {
      return 0;
    }
    long dropped = 0;
    List<String> kept = events;
    if (kept.size() > maxEvents) {
      dropped += kept.size() - maxEvents;
      kept = kept.subList(kept.size() - (int) maxEvents, kept.size());
    }
    long excess;
    synchronized (this) {
      excess = size + kept.size() - maxEvents;
    }
    while (excess > 0) {
      long seq;
      int count;
      synchronized (this) {
        seq = segments.firstKey();
        count = segments.get(seq);
      }
      if (count <= excess) {
        delete(seq);
        excess -= count;
        dropped += count;
      } else {
        List<String> lines = read(seq);
        List<String> rest = new ArrayList<>(lines.subList((int) excess, lines.size()));
        write(seq, rest);
        synchronized (this) {
          segments.put(seq, rest.size());
          size -= excess;
        }
        dropped += excess;
        excess = 0;
      }
    }
    long seq;
    synchronized (this) {
      seq = nextSeq++;
    }
    write(seq, kept);
    synchronized (this) {
      segments.put(seq, kept.size());
      size += kept.size();
    }
    return dropped;
  }

  /** Every event, oldest first (for tests and tools). */
  List<String> all() throws IOException {
    List<Long> seqs;
    synchronized (this) {
      seqs = new ArrayList<>(segments.keySet());
    }
    List<String> out = new ArrayList<>();
    for (long seq : seqs) {
      out.addAll(read(seq));
    }
    return out;
  }

  /** The oldest segment. */
  Optional<Segment> oldest() throws IOException {
    long seq;
    synchronized (this) {
      if (segments.isEmpty()) {
        return Optional.empty();
      }
      seq = segments.firstKey();
    }
    return Optional.of(new Segment(seq, read(seq)));
  }

  /** The hub settled this segment: it leaves the spool. */
  void remove(Segment segment) throws IOException {
    delete(segment.seq());
  }

  private List<String> read(long seq) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(path(seq), StandardCharsets.UTF_8)) {
      if (isEvent(line)) {
        out.add(line); // damaged lines were counted as dropped when the spool was opened
      }
    }
    return out;
  }

  private void write(long seq, List<String> lines) throws IOException {
    Path target = path(seq);
    Path tmp = dir.resolve(target.getFileName() + ".tmp");
    StringBuilder b = new StringBuilder();
    for (String line : lines) {
      b.append(line).append('\n');
    }
    Files.writeString(tmp, b, StandardCharsets.UTF_8);
    try {
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private void delete(long seq) throws IOException {
    Files.deleteIfExists(path(seq));
    synchronized (this) {
      Integer count = segments.remove(seq);
      if (count != null) {
        size -= count;
      }
    }
  }

  private Path path(long seq) {
    return dir.resolve(String.format("%012d.jsonl", seq));
  }
}
