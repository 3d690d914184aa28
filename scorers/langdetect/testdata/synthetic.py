"""Texts written for pocketeval's langdetect tests, one family per failure
the port must reproduce (issue 12) plus the normalisation corner cases.
Imported by gen_golden.py and ../../ifeval/testdata/gen_official.py."""
import unicodedata

HINDI = "भारत एक विशाल देश है जहाँ अनेक भाषाएँ बोली जाती हैं और हर राज्य की अपनी संस्कृति है।"
HINDI_2 = "मुझे सुबह की सैर करना बहुत पसंद है क्योंकि इससे दिन भर ताज़गी बनी रहती है।"
NEPALI = "नेपाल हिमालयको काखमा रहेको एउटा सुन्दर देश हो। यहाँका मानिसहरू मिलनसार छन्।"
NEPALI_2 = "म हरेक बिहान चिया पिउँछु र त्यसपछि कामका लागि घरबाट निस्कन्छु।"
MARATHI = "महाराष्ट्र हे भारतातील एक मोठे राज्य आहे आणि मुंबई ही त्याची राजधानी आहे."
SWAHILI = "Habari za asubuhi rafiki yangu. Leo tutajifunza kuhusu historia ya Afrika Mashariki na lugha zake."
GERMAN = "Die Stadt liegt an einem breiten Fluss, und im Sommer sitzen die Menschen gern am Ufer."
KOREAN = "서울은 한국의 수도이며 많은 사람들이 살고 있는 큰 도시입니다."
ENGLISH = "The committee met on Tuesday to review the budget and agreed to postpone the vote until next month."

SHORT_LOWERCASE = [
    "the silent harbor", "a walk in the park", "morning light", "garden of stars",
    "my favorite recipe", "open source software", "hello world", "thank you",
    "good morning everyone", "the end", "best pizza in town", "summer vacation plans",
    "la casa blanca", "ode to the sea", "new beginnings", "quiet streets at dawn",
    "a letter to my sister", "rain", "coffee and code", "under the old bridge",
    "the art of listening", "why cats purr", "notes on a river", "taco tuesday",
    "my riddle", "limerick about a dog", "song of the open road", "data pipelines",
]

ALL_CAPS = [
    "YES", "NO", "A. RED\nB. BLUE\nC. GREEN", "1. APPLES 2. PEARS 3. PLUMS",
    "TOP 3 TIPS: SLEEP, WATER, EXERCISE", "MONDAY TUESDAY WEDNESDAY",
    "I. INTRODUCTION II. METHODS III. RESULTS", "NASA ESA JAXA", "OK", "THE END",
    "HAPPY BIRTHDAY", "WARNING: HOT SURFACE", "ROSES ARE RED VIOLETS ARE BLUE",
    "MY ANSWER IS YES.", "- MILK\n- EGGS\n- BREAD\n- BUTTER",
    "Ⅻ", "Ⅰ Ⅱ Ⅲ Ⅳ", "CHAPTER ONE: THE BEGINNING",
]

URLS_AND_MAIL = [
    "Visit https://example.com/path?x=1&y=2#top for more information about our products.",
    "Contact me at john.doe@example.org if you have questions about the schedule.",
    "http://", "https://a", "see http://x and https://y.z/w",
    "httphttps://example.com/ok then more text follows here",
    "mail a@b now", "mail a@bc now", "x@yy.zz", "first.last@sub.domain.example.com is my address",
    "@@@ @a b@ a@@b", "user@exa_mple-site.co.uk, other@host",
    "a" * 70 + "@example.com is a very long local part",
    "https://" + "abc/" * 600 + " and then some English words at the end",
    "Die Adresse ist max.mustermann@example.de und die Seite https://beispiel.de/info",
]

NORMALISATION = [
    unicodedata.normalize("NFD", "Tiếng Việt là ngôn ngữ chính thức của Việt Nam."),
    "Tiếng Việt là ngôn ngữ chính thức của Việt Nam.",
    unicodedata.normalize("NFD", "Hôm nay trời đẹp quá, chúng ta đi dạo nhé."),
    "Română: știință, țară și școală.", "Romana: stiinta, tara si scoala.",
    "این یک متن فارسی است که برای آزمایش نوشته شده است.",
    "«Bonjour», dit-il à 20° ce matin.",
    "今日はとても良い天気ですね。散歩に行きましょう。", "カタカナ テスト ゲーム",
    "ㄅㄆㄇㄈ 注音符號", "안녕하세요 반갑습니다", "我喜欢用 Python 和 Go 编程。",
    "這是一個繁體中文的句子，用來測試語言識別。", "这是一个简体中文的句子，用来测试语言识别。",
    "Привет, как дела? hello there", "Ελληνικά κείμενα για δοκιμή", "שלום עולם, זהו טקסט בעברית",
    "مرحبا بالعالم هذا نص عربي", "สวัสดีครับ ยินดีต้อนรับ", "ẠẢẤẦẨẪẬ ạảấầẩẫậ",
    "McDonald iPhone eBay LaTeX", "ÀÉÎÕÜ àéîõü", "ABCdef GHIjkl",
    "12345", "!!!", "", "   ", "— … “ ”", "😀😀😀", "3.14 + 2.72 = 5.86", "a", "ß",
    "\t\n\r", "x" * 3, "the " * 4000 + "Ende der Geschichte auf Deutsch.",
]

MIXED = [
    "Here is the translation you asked for:\n\n" + HINDI,
    "Sure! Below is my answer in German.\n\n" + GERMAN,
    "Of course. Here it is in Korean:\n\n" + KOREAN,
    "Here is a short paragraph in Swahili:\n\n" + SWAHILI,
    "Here is the answer in Nepali:\n\n" + NEPALI,
    ENGLISH + "\n\n" + HINDI,
    ENGLISH + "\n\n" + NEPALI + "\n\n" + NEPALI_2,
    HINDI + "\n\n" + ENGLISH,
    "Note: the following text is written in Marathi as requested.\n" + MARATHI,
]

DEVANAGARI = [HINDI, HINDI_2, NEPALI, NEPALI_2, MARATHI, HINDI[:20], NEPALI[:20], "नमस्ते",
              "धन्यवाद", "म भात खान्छु।", "तपाईंलाई कस्तो छ?", "मैं ठीक हूँ।", HINDI + " " + NEPALI]

SWAHILI_REPEATED = [
    "sawa " * 300, "jambo " * 500, ("habari\n" * 200).strip(), "Ndiyo " * 150 + "ndiyo.",
    SWAHILI, "asante sana", "Hakuna matata", "Karibu sana rafiki",
]

FAMILIES = {
    "short_lowercase": SHORT_LOWERCASE,
    "all_caps": ALL_CAPS,
    "devanagari": DEVANAGARI,
    "swahili_repeated": SWAHILI_REPEATED,
    "english_block_first": MIXED,
    "urls_and_mail": URLS_AND_MAIL,
    "normalisation": NORMALISATION,
}
