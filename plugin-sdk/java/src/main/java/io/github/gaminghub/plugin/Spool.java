package io.github.gaminghub.plugin;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Events the hub could not take yet, on disk: one file per batch ("segment"), named by a sequence
 * number and its event count, one event's JSON per line. A segment is written to a temporary file and
 * renamed, so a crash leaves whole segments only; it is deleted once the hub has answered it. At most
 * {@code maxEvents} are kept: past that the oldest segments are deleted and counted as dropped.
 *
 * <p>Only the sender thread calls it; the lock guards the counters read by {@link HubPlugin#counters}.
 */
final class Spool {
  private static final Pattern NAME = Pattern.compile("(\\d{20})-(\\d+)\\.jsonl");

  /** A batch read back from the spool. */
  record Segment(long seq, Path path, List<String> events) {}

  private final Path dir;
  private final long maxEvents;
  private final TreeMap<Long, Integer> segments = new TreeMap<>();
  private long size;
  private long nextSeq;

  Spool(Path dir, long maxEvents) throws IOException {
    this.dir = dir;
    this.maxEvents = maxEvents;
    Files.createDirectories(dir);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path p : files) {
        Matcher m = NAME.matcher(p.getFileName().toString());
        if (m.matches()) {
          segments.put(Long.parseLong(m.group(1)), Integer.parseInt(m.group(2)));
        } else if (p.getFileName().toString().endsWith(".tmp")) {
          Files.deleteIfExists(p); // a write the process did not finish: never renamed, never counted
        }
      }
    }
    for (int n : segments.values()) {
      size += n;
    }
    nextSeq = segments.isEmpty() ? 1 : segments.lastKey() + 1;
  }

  synchronized long size() {
    return size;
  }

  /**
   * Writes {@code events} (oldest first) as one segment, then drops the oldest segments past the bound.
   *
   * @return how many events were dropped to stay within the bound
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
    long seq;
    synchronized (this) {
      seq = nextSeq++;
    }
    Path target = dir.resolve(String.format("%020d-%d.jsonl", seq, kept.size()));
    Path tmp = dir.resolve(target.getFileName() + ".tmp");
    Files.write(tmp, (String.join("\n", kept) + "\n").getBytes(StandardCharsets.UTF_8));
    try {
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
    }
    synchronized (this) {
      segments.put(seq, kept.size());
      size += kept.size();
    }
    while (true) {
      long oldest;
      int count;
      synchronized (this) {
        if (size <= maxEvents || segments.size() <= 1) {
          break;
        }
        oldest = segments.firstKey();
        count = segments.get(oldest);
      }
      delete(oldest, count);
      dropped += count;
    }
    return dropped;
  }

  /** The oldest segment, read from disk; its unreadable lines are skipped. */
  Optional<Segment> oldest() throws IOException {
    long seq;
    int count;
    synchronized (this) {
      if (segments.isEmpty()) {
        return Optional.empty();
      }
      seq = segments.firstKey();
      count = segments.get(seq);
    }
    Path path = dir.resolve(String.format("%020d-%d.jsonl", seq, count));
    List<String> events = new ArrayList<>(count);
    for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        events.add(line);
      }
    }
    return Optional.of(new Segment(seq, path, events));
  }

  /** The hub answered this segment: it leaves the spool. */
  void remove(Segment segment) throws IOException {
    Integer count;
    synchronized (this) {
      count = segments.get(segment.seq());
    }
    if (count != null) {
      delete(segment.seq(), count);
    }
  }

  private void delete(long seq, int count) throws IOException {
    Files.deleteIfExists(dir.resolve(String.format("%020d-%d.jsonl", seq, count)));
    synchronized (this) {
      if (segments.remove(seq) != null) {
        size -= count;
      }
    }
  }
}
