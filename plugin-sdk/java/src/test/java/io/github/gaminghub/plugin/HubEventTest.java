package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The typed factories build what the wire expects (the vectors check the encoder itself). */
class HubEventTest {
  private static final Instant AT = Instant.parse("2026-01-02T03:04:05.678901Z");
  private static final Instant NOW = Instant.parse("2026-01-02T03:05:00Z");
  private static final Player STEVE = Player.minecraft("Steve", "069A79F4-44E9-4726-A5BE-FCA90E38AAF5");
  private static final Player ALEX = Player.minecraft("Alex", UUID.fromString("853c80ef-3c37-49fd-aa49-938b674adae6"));
  private final EventEncoder encoder = new EventEncoder("00000000000000aa", () -> NOW);

  @Test
  void playersAreNormalizedTheWayTheHubStoresThem() {
    assertEquals("069a79f4-44e9-4726-a5be-fca90e38aaf5", STEVE.id());
    assertEquals("069a79f4-44e9-4726-a5be-fca90e38aaf5", Player.minecraft("S", "069a79f444e94726a5befca90e38aaf5").id());
    assertEquals("0002a10af0ab4c5c9a8b7f2e3d4c5b6a", Player.eos("E", "0002A10AF0AB4C5C9A8B7F2E3D4C5B6A").id());
    assertEquals("STEAM_0:1:123", Player.steam("G", "STEAM_0:1:123").id());
    assertThrows(IllegalArgumentException.class, () -> Player.minecraft("S", "not-a-uuid"));
    assertThrows(IllegalArgumentException.class, () -> Player.eos("E", "abc"));
    assertThrows(IllegalArgumentException.class, () -> Player.steam("G", "7656119800000004"));
    assertThrows(IllegalArgumentException.class, () -> Player.steam("", "76561198000000001"));
    assertThrows(IllegalArgumentException.class, () -> Player.steam("x".repeat(65), "76561198000000001"));
  }

  @Test
  void eachFactoryGivesTheContractsShape() {
    assertWire(HubEvent.playerConnect(STEVE, AT),
        "{'type':'player_session','client_id':'00000000000000aa-1','occurred_at':'2026-01-02T03:04:05.678Z',"
            + "'action':'connect','player':{'name':'Steve','minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'}}");
    assertWire(HubEvent.playerDisconnect(STEVE, null),
        "{'type':'player_session','client_id':'00000000000000aa-2','occurred_at':'2026-01-02T03:05:00.000Z',"
            + "'action':'disconnect','player':{'name':'Steve','minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'}}");
    assertWire(HubEvent.chat(STEVE, " gg ", true, AT),
        "{'type':'chat','client_id':'00000000000000aa-3','occurred_at':'2026-01-02T03:04:05.678Z','player':{'name':'Steve',"
            + "'minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'},'message':' gg ','team_only':true}");
    assertWire(HubEvent.kill(STEVE, ALEX, "diamond_sword", AT, new HubEvent.KillDetails(true, 3.5, 2)),
        "{'type':'kill','client_id':'00000000000000aa-4','occurred_at':'2026-01-02T03:04:05.678Z',"
            + "'killer':{'name':'Steve','minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'},"
            + "'victim':{'name':'Alex','minecraft_uuid':'853c80ef-3c37-49fd-aa49-938b674adae6'},"
            + "'weapon':'diamond_sword','headshot':true,'distance':3.5,'round_number':2}");
    assertWire(HubEvent.roundStart(1, AT),
        "{'type':'round','client_id':'00000000000000aa-5','occurred_at':'2026-01-02T03:04:05.678Z','action':'start',"
            + "'round_number':1}");
    assertWire(HubEvent.roundEnd(1, 1, 0, HubEvent.Winner.TEAM1, AT),
        "{'type':'round','client_id':'00000000000000aa-6','occurred_at':'2026-01-02T03:04:05.678Z','action':'end',"
            + "'round_number':1,'team1_score':1,'team2_score':0,'winner':'team1'}");
    assertWire(HubEvent.matchResult("arena", List.of(STEVE), List.of(ALEX), 16, 9, AT),
        "{'type':'match_result','client_id':'00000000000000aa-7','ended_at':'2026-01-02T03:04:05.678Z','map':'arena',"
            + "'team1':[{'name':'Steve','minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'}],"
            + "'team2':[{'name':'Alex','minecraft_uuid':'853c80ef-3c37-49fd-aa49-938b674adae6'}],"
            + "'team1_score':16,'team2_score':9}");
    assertWire(HubEvent.mapChange("world_nether", AT).withClientId("own-1"),
        "{'type':'map_change','client_id':'own-1','occurred_at':'2026-01-02T03:04:05.678Z','map':'world_nether'}");
  }

  @Test
  void badEventsAreRefusedWhenQueuedNamingTheField() {
    InvalidEventException e = assertThrows(InvalidEventException.class,
        () -> encoder.encode(HubEvent.kill(STEVE, STEVE, "bow", AT).input()));
    assertEquals("victim", e.field());
    assertEquals("message", assertThrows(InvalidEventException.class,
        () -> encoder.encode(HubEvent.chat(STEVE, "", false, AT).input())).field());
    assertEquals("map", assertThrows(InvalidEventException.class,
        () -> encoder.encode(HubEvent.mapChange("", AT).input())).field());
    assertEquals("client_id", assertThrows(InvalidEventException.class,
        () -> HubEvent.mapChange("m", AT).withClientId("")).field());
  }

  @Test
  void withClientIdCopies() {
    HubEvent a = HubEvent.mapChange("m", AT);
    HubEvent own = a.withClientId("match-42");
    assertEquals(Optional.of("match-42"), own.clientId());
    assertEquals(Optional.empty(), a.clientId());
    JsonObject raw = new JsonObject();
    raw.addProperty("type", "map_change");
    raw.addProperty("map", "x");
    assertTrue(encoder.encode(HubEvent.fromJson(raw).input()).has("client_id"));
  }

  private void assertWire(HubEvent event, String expected) {
    assertEquals(JsonParser.parseString(expected.replace('\'', '"')), encoder.encode(event.input()));
  }
}
