package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpoolTest {
  @TempDir Path dir;

  private static List<String> events(int from, int n) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      out.add("{\"n\":" + i + "}");
    }
    return out;
  }

  @Test
  void segmentsComeBackOldestFirstAndLeaveWhenRemoved() throws Exception {
    Spool s = new Spool(dir, 100);
    s.append(events(0, 3));
    s.append(events(3, 2));
    assertEquals(5, s.size());
    Spool.Segment first = s.oldest().orElseThrow();
    assertEquals(events(0, 3), first.events());
    s.remove(first);
    assertEquals(events(3, 2), s.oldest().orElseThrow().events());
    assertEquals(2, s.size());
  }

  @Test
  void survivesARestartAndIgnoresUnfinishedWrites() throws Exception {
    Spool s = new Spool(dir, 100);
    s.append(events(0, 3));
    s.append(events(3, 4));
    Files.writeString(dir.resolve("00000000000000000099-5.jsonl.tmp"), "{\"half\":");
    Spool again = new Spool(dir, 100);
    assertEquals(7, again.size());
    assertEquals(events(0, 3), again.oldest().orElseThrow().events());
    assertFalse(Files.exists(dir.resolve("00000000000000000099-5.jsonl.tmp")));
    again.append(events(7, 1));
    List<String> all = new ArrayList<>();
    for (var seg = again.oldest(); seg.isPresent(); seg = again.oldest()) {
      all.addAll(seg.get().events());
      again.remove(seg.get());
    }
    assertEquals(events(0, 8), all, "a segment written after the restart comes after the old ones");
  }

  @Test
  void theOldestAreDroppedPastTheBound() throws Exception {
    Spool s = new Spool(dir, 10);
    assertEquals(0, s.append(events(0, 4)));
    assertEquals(0, s.append(events(4, 4)));
    assertEquals(4, s.append(events(8, 4)), "the first segment goes");
    assertEquals(8, s.size());
    assertEquals(events(4, 4), s.oldest().orElseThrow().events());
    assertEquals(18, s.append(events(12, 20)), "a batch bigger than the bound keeps its newest ten; the other 18 go");
    assertEquals(10, s.size());
    assertEquals(events(22, 10), s.oldest().orElseThrow().events());
    try (var files = Files.list(dir)) {
      assertTrue(files.count() == 1);
    }
  }
}
