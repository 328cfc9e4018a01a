package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class HubEventTest {
  private static final Instant AT = Instant.parse("2026-01-02T03:04:05.678901Z");
  private static final Player STEVE = Player.minecraft("Steve", "069A79F4-44E9-4726-A5BE-FCA90E38AAF5");
  private static final Player ALEX = Player.minecraft("Alex", UUID.fromString("853c80ef-3c37-49fd-aa49-938b674adae6"));

  @Test
  void playersAreNormalizedTheWayTheHubStoresThem() {
    assertEquals("069a79f4-44e9-4726-a5be-fca90e38aaf5", STEVE.id());
    assertEquals("069a79f4-44e9-4726-a5be-fca90e38aaf5", Player.minecraft("S", "069a79f444e94726a5befca90e38aaf5").id());
    assertEquals("0002a10af0ab4c5c9a8b7f2e3d4c5b6a", Player.eos("E", "0002A10AF0AB4C5C9A8B7F2E3D4C5B6A").id());
    assertEquals("{\"name\":\"Steve\",\"minecraft_uuid\":\"069a79f4-44e9-4726-a5be-fca90e38aaf5\"}",
        STEVE.toJson().toString());
    assertEquals("{\"name\":\"G\",\"steam_id\":\"76561198000000001\"}",
        Player.steam("G", "76561198000000001").toJson().toString());
    assertEquals("{\"name\":\"E\",\"eos_id\":\"0002a10af0ab4c5c9a8b7f2e3d4c5b6a\"}",
        Player.eos("E", "0002a10af0ab4c5c9a8b7f2e3d4c5b6a").toJson().toString());
  }

  @Test
  void badIdentitiesFailWhereTheyAreMade() {
    assertThrows(IllegalArgumentException.class, () -> Player.minecraft("S", "not-a-uuid"));
    assertThrows(IllegalArgumentException.class, () -> Player.eos("E", "abc"));
    assertThrows(IllegalArgumentException.class, () -> Player.steam("", "76561198000000001"));
    assertThrows(IllegalArgumentException.class, () -> Player.steam("x".repeat(65), "76561198000000001"));
    assertThrows(IllegalArgumentException.class, () -> HubEvent.chat(STEVE, "", false, AT));
    assertThrows(IllegalArgumentException.class, () -> HubEvent.chat(STEVE, "x".repeat(513), false, AT));
    assertThrows(IllegalArgumentException.class, () -> HubEvent.mapChange("", AT));
    assertThrows(IllegalArgumentException.class, () -> HubEvent.mapChange("m", AT).withClientId(""));
  }

  @Test
  void eachKindHasTheContractsShape() {
    assertShape(HubEvent.playerConnect(STEVE, AT),
        "{'type':'player_session','occurred_at':'2026-01-02T03:04:05.678Z','action':'connect',"
            + "'player':{'name':'Steve','minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'}}");
    assertShape(HubEvent.playerDisconnect(STEVE, AT),
        "{'type':'player_session','occurred_at':'2026-01-02T03:04:05.678Z','action':'disconnect',"
            + "'player':{'name':'Steve','minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'}}");
    assertShape(HubEvent.chat(STEVE, "gg", true, AT),
        "{'type':'chat','occurred_at':'2026-01-02T03:04:05.678Z','player':{'name':'Steve',"
            + "'minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'},'message':'gg','team_only':true}");
    assertShape(HubEvent.kill(STEVE, ALEX, "diamond_sword", AT, new HubEvent.KillDetails(true, 3.5, 2)),
        "{'type':'kill','occurred_at':'2026-01-02T03:04:05.678Z',"
            + "'killer':{'name':'Steve','minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'},"
            + "'victim':{'name':'Alex','minecraft_uuid':'853c80ef-3c37-49fd-aa49-938b674adae6'},"
            + "'weapon':'diamond_sword','headshot':true,'distance':3.5,'round_number':2}");
    assertShape(HubEvent.kill(STEVE, ALEX, "bow", AT),
        "{'type':'kill','occurred_at':'2026-01-02T03:04:05.678Z',"
            + "'killer':{'name':'Steve','minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'},"
            + "'victim':{'name':'Alex','minecraft_uuid':'853c80ef-3c37-49fd-aa49-938b674adae6'},'weapon':'bow'}");
    assertShape(HubEvent.roundStart(1, AT),
        "{'type':'round','occurred_at':'2026-01-02T03:04:05.678Z','action':'start','round_number':1}");
    assertShape(HubEvent.roundEnd(1, 1, 0, HubEvent.Winner.TEAM1, AT),
        "{'type':'round','occurred_at':'2026-01-02T03:04:05.678Z','action':'end','round_number':1,"
            + "'team1_score':1,'team2_score':0,'winner':'team1'}");
    assertShape(HubEvent.matchResult("arena", List.of(STEVE), List.of(ALEX), 16, 9, AT),
        "{'type':'match_result','ended_at':'2026-01-02T03:04:05.678Z','map':'arena',"
            + "'team1':[{'name':'Steve','minecraft_uuid':'069a79f4-44e9-4726-a5be-fca90e38aaf5'}],"
            + "'team2':[{'name':'Alex','minecraft_uuid':'853c80ef-3c37-49fd-aa49-938b674adae6'}],"
            + "'team1_score':16,'team2_score':9}");
    assertShape(HubEvent.mapChange("world_nether", AT),
        "{'type':'map_change','occurred_at':'2026-01-02T03:04:05.678Z','map':'world_nether'}");
  }

  @Test
  void everyEventHasItsOwnClientIdUnlessGivenOne() {
    HubEvent a = HubEvent.mapChange("m", AT);
    HubEvent b = HubEvent.mapChange("m", AT);
    assertNotEquals(a.clientId(), b.clientId());
    assertTrue(a.clientId().length() <= 128);
    HubEvent own = a.withClientId("match-42");
    assertEquals("match-42", own.clientId());
    assertEquals("match-42", own.toJson().get("client_id").getAsString());
    assertEquals(a.toJson().get("map"), own.toJson().get("map"));
    assertFalse(a.clientId().equals("match-42"), "withClientId copies");
  }

  @Test
  void unknownKindsPassThrough() {
    JsonObject f = new JsonObject();
    f.addProperty("occurred_at", "2026-01-02T03:04:05Z");
    f.addProperty("note", "x");
    JsonObject e = HubEvent.of("custom_thing", f).toJson();
    assertEquals("custom_thing", e.get("type").getAsString());
    assertEquals("x", e.get("note").getAsString());
    assertTrue(e.has("client_id"));
  }

  private static void assertShape(HubEvent event, String expected) {
    JsonObject actual = event.toJson();
    assertTrue(actual.get("client_id").getAsString().length() > 0);
    actual.remove("client_id");
    assertEquals(JsonParser.parseString(expected.replace('\'', '"')), actual);
  }
}
