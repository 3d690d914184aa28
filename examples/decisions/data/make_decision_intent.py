# Writes decision_intent_{test,calibration}.jsonl: SYNTHETIC example data for
# the decision task files (decision_intent_*.yaml). Hand-written Chinese
# utterances for 24 app intents; every record offers 8, 12, 16 or 20
# candidate intents (the gold one among them, the rest drawn at random),
# whose descriptions differ in length. Not a benchmark: a small, clearly
# made-up set to exercise candidate selection end to end.
# Run: python3 make_decision_intent.py
import json
import random

INTENTS = [
    ("天气", ["明天北京会下雨吗", "今天外面冷不冷", "这周末天气怎么样"]),
    ("设置闹钟", ["明早七点叫我起床", "帮我定一个六点半的闹钟", "设个十分钟后的提醒铃"]),
    ("播放音乐", ["来点轻松的歌", "放一首周杰伦的歌", "我想听点钢琴曲"]),
    ("导航到目的地", ["带我去最近的加油站", "怎么开车去机场", "导航到公司"]),
    ("打电话", ["给妈妈打个电话", "拨打张经理的手机", "呼叫小王"]),
    ("发送短信给联系人", ["给老李发短信说我晚点到", "告诉小张会议改到三点", "发消息给爸爸说我到家了"]),
    ("查询快递物流状态", ["我的快递到哪了", "查一下昨天寄的包裹", "快递什么时候能送到"]),
    ("翻译", ["你好用英语怎么说", "把这句话翻译成日语", "谢谢的法语是什么"]),
    ("计算器", ["三百六十五乘以二十四是多少", "算一下一百除以七", "十五的平方是多少"]),
    ("打开手电筒", ["太黑了把灯打开", "打开闪光灯", "开一下手电筒"]),
    ("调节屏幕亮度", ["屏幕太亮了调暗一点", "把亮度调到最高", "屏幕亮一点"]),
    ("连接蓝牙耳机", ["连上我的蓝牙耳机", "耳机怎么连不上", "打开蓝牙配对耳机"]),
    ("拍照", ["帮我拍张照片", "打开相机", "我要自拍"]),
    ("日程安排", ["明天下午有什么安排", "下周一上午我有会吗", "查看我今天的日程"]),
    ("添加待办事项到清单", ["提醒我买牛奶", "把交电费加到待办里", "记得周五交报告"]),
    ("股票行情", ["今天大盘涨了吗", "查一下茅台的股价", "我的股票跌了多少"]),
    ("新闻", ["有什么新闻", "今天的头条是什么", "播报一下体育新闻"]),
    ("订外卖", ["帮我点一份麻辣烫", "叫个外卖", "订一份披萨送到家"]),
    ("打车", ["帮我叫辆车去火车站", "打个车回家", "叫一辆出租车"]),
    ("设置静音模式", ["手机调成静音", "开会了别让手机响", "关掉铃声"]),
    ("汇率换算", ["一百美元换多少人民币", "今天欧元汇率多少", "日元兑人民币是多少"]),
    ("查询航班起降信息", ["CA1234航班延误了吗", "明天去上海的航班几点起飞", "查一下我的航班状态"]),
    ("讲个笑话", ["讲个笑话听听", "说点好笑的", "逗我开心一下"]),
    ("其他", ["你叫什么名字", "随便聊聊吧", "你会做什么"]),
]
KEYS = "ABCDEFGHIJKLMNOPQRST"


def records(rng, n):
    out = []
    for _ in range(n):
        g = rng.randrange(len(INTENTS))
        k = rng.choice([8, 12, 16, 20])
        others = rng.sample([i for i in range(len(INTENTS)) if i != g], k - 1)
        cands = others + [g]
        rng.shuffle(cands)
        out.append({
            "text": rng.choice(INTENTS[g][1]),
            "candidates": [INTENTS[i][0] for i in cands],
            "keys": list(KEYS[:k]),
            "gold": cands.index(g),
        })
    return out


rng = random.Random(30)
for split, n in [("test", 48), ("calibration", 48)]:
    with open(f"decision_intent_{split}.jsonl", "w", encoding="utf-8") as f:
        for r in records(rng, n):
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
