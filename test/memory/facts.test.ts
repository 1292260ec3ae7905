import { describe, expect, it } from "vitest";
import { inferCategory, keyForFact } from "../../src/memory/facts";
import { MEMORY_KEY_MAX, MEMORY_KEY_PATTERN } from "../../src/memory/fields";

describe("the category of a fact stated in one line", () => {
  it("is preference for every habitual like, drink or dislike, in English and in Russian", () => {
    const likes = [
      "I drink green tea every morning",
      "I prefer green tea",
      "I really like green tea",
      "I usually drink green tea",
      "I don't drink coffee",
      "My favourite drink is green tea",
      "Я пью зелёный чай каждое утро",
      "Пью зелёный чай по утрам",
      "Я предпочитаю зелёный чай",
      "Люблю зелёный чай",
      "Обычно я пью зелёный чай",
      "Я не пью кофе",
      "Мне нравится зелёный чай",
    ];
    expect(likes.map((fact) => [fact, inferCategory(fact)])).toEqual(likes.map((fact) => [fact, "preference"]));
  });

  it("stays what the wording says for facts that are not likes", () => {
    expect(inferCategory("My name is Alice")).toBe("identity");
    expect(inferCategory("Меня зовут Маша")).toBe("identity");
    expect(inferCategory("Мне 30 лет")).toBe("identity");
    expect(inferCategory("The release is on Friday")).toBe("project");
    expect(inferCategory("Релиз в пятницу")).toBe("project");
    expect(inferCategory("Never deploy on Fridays")).toBe("mistake");
    expect(inferCategory("The office is in Berlin")).toBe("note");
    expect(inferCategory("Офис в Берлине")).toBe("note");
  });
});

describe("the key of a fact stated in one line", () => {
  it("is made of the words that say what the fact is about, the same for like sentences", async () => {
    expect(await keyForFact("I drink green tea")).toBe("green_tea");
    expect(await keyForFact("I prefer green tea")).toBe("green_tea");
    expect(await keyForFact("My name is Alice and I work on billing")).toBe("name_alice_work_billing");
  });

  it("spells Russian words in Latin letters", async () => {
    expect(await keyForFact("Я пью зелёный чай")).toBe("zelenyj_chaj");
    expect(await keyForFact("Люблю зелёный чай")).toBe("zelenyj_chaj");
    expect(await keyForFact("Щука и ёжик в Хабаровске")).toBe("shchuka_ezhik_khabarovske");
  });

  it("is a valid memory key for any text, and the same for the same fact", async () => {
    const texts = ["Café crème, s'il vous plaît", "я", "I like it", "📌 v2.1 — 42", "x".repeat(300), `${"слово ".repeat(40)}`, "我喜欢绿茶"];
    for (const text of texts) {
      const key = await keyForFact(text);
      expect(key, text).toMatch(MEMORY_KEY_PATTERN);
      expect(key.length, text).toBeLessThanOrEqual(MEMORY_KEY_MAX);
      expect(await keyForFact(text)).toBe(key);
    }
    expect(await keyForFact("Café crème")).toBe("cafe_creme");
    expect(await keyForFact("我喜欢绿茶")).toMatch(/^fact_[0-9a-f]{6}$/);
  });
});
