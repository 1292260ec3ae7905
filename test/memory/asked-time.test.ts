import { describe, expect, it } from "vitest";
import { askedTime } from "../../src/memory/asked-time";

// Thursday, 9 March 2023, noon.
const NOW = new Date("2023-03-09T12:00:00Z");
const DAY = 86_400_000;
const daysBack = (span: { from: Date; to: Date } | null) => span && [(NOW.getTime() - span.to.getTime()) / DAY, (NOW.getTime() - span.from.getTime()) / DAY];

describe("the time a question points back to", () => {
  it("reads a count of days, weeks, months or years ago, give or take half a unit (a quarter of the days, at least one)", () => {
    expect(daysBack(askedTime("What did I do two weeks ago?", NOW))).toEqual([10.5, 17.5]);
    expect(daysBack(askedTime("the art event I went to 3 days ago", NOW))).toEqual([2, 4]);
    expect(daysBack(askedTime("I cooked something a couple of days ago", NOW))).toEqual([1, 3]);
    expect(daysBack(askedTime("What did we buy a month ago?", NOW))).toEqual([15, 45]);
    expect(daysBack(askedTime("How much did I earn one year ago", NOW))).toEqual([182.5, 547.5]);
  });

  it("reads yesterday, the last weekday (a week back on that very day), last week or month, and the past few days", () => {
    expect(daysBack(askedTime("Who called yesterday?", NOW))).toEqual([0, 2]);
    expect(daysBack(askedTime("I received jewelry last Saturday from whom?", NOW))).toEqual([4, 6]);
    expect(daysBack(askedTime("Who did I meet last Thursday?", NOW))).toEqual([6, 8]);
    expect(daysBack(askedTime("How many hours did I jog last week?", NOW))).toEqual([0, 14]);
    expect(daysBack(askedTime("How many times did I bake in the past two weeks?", NOW))).toEqual([0, 14]);
    expect(daysBack(askedTime("What did I gain over the past month?", NOW))).toEqual([0, 30]);
  });

  it("reads the same in Russian", () => {
    expect(daysBack(askedTime("Что я делал три дня назад?", NOW))).toEqual([2, 4]);
    expect(daysBack(askedTime("Что мы купили неделю назад?", NOW))).toEqual([3.5, 10.5]);
    expect(daysBack(askedTime("Кто звонил вчера?", NOW))).toEqual([0, 2]);
    expect(daysBack(askedTime("Что мне подарили в прошлую субботу?", NOW))).toEqual([4, 6]);
    expect(daysBack(askedTime("Сколько я бегал на прошлой неделе?", NOW))).toEqual([0, 14]);
    expect(daysBack(askedTime("Что я купил за последние два месяца?", NOW))).toEqual([0, 60]);
  });

  it("finds no time in a question that names none, or names one ahead", () => {
    for (const q of ["Where do I live now?", "What is my current score?", "What will I do next week?", "Ago is a word", "Что я люблю?", "Что будет через неделю?"])
      expect(askedTime(q, NOW), q).toBeNull();
  });
});
