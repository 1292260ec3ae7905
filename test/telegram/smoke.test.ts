import { describe, expect, it } from "vitest";
import { newPerson, send, sentTexts, standInTelegram, textUpdate } from "../support/telegram";

const telegram = standInTelegram();

describe("smoke", () => {
  it("answers /start", async () => {
    const p = newPerson("ru");
    await send(p, textUpdate(p, "/start"));
    await send(p, textUpdate(p, "привет"));
    expect(sentTexts(telegram, p.chat.id).length).toBe(2);
  });
});
