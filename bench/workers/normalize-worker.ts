import { toIndexText } from "../../src/memory/normalize";

// The product's text normalisation alone in a Worker: the soak's first phase sends it long texts.
const MIND = "mind_01jdx0ab12cdefghjkmnpqrstv";
export default {
  async fetch(request) {
    return new Response(String(toIndexText(MIND, await request.text()).length));
  },
} satisfies ExportedHandler;
