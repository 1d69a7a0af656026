"""Word lists of the synthetic corpus (bench/corpus.py): stopwords, names, Chinese research words,
venues and title shapes. Fixed lists, so the same seed gives the same corpus."""

STOPWORDS = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "into", "is", "it",
    "its", "of", "on", "or", "our", "that", "the", "their", "these", "this", "to", "we", "which", "while", "with",
    "can", "not", "than", "both", "such", "also", "how", "when", "over", "under", "more", "most", "via", "each",
    "between", "where", "they", "them", "then", "there", "thus", "however", "yet", "but", "do", "does", "did",
    "been", "being", "was", "were", "so", "only", "well", "all", "any"
]
SMALL_TITLE_WORDS = ["a", "an", "and", "for", "of", "on", "in", "the", "to", "via", "with", "from", "by", "at"]

FIRST_NAMES = [
    "Wei", "Jing", "Hao", "Yu", "Xin", "Yang", "Lei", "Jun", "Tao", "Min", "Hui", "Bin", "Chen", "Lin", "Qiang",
    "Yan", "Fang", "Ning", "Rui", "Zhen", "Haoyun", "Jianwei", "Haocheng", "Shuo", "Yilong", "Tianjian", "Wenbin",
    "Ziping", "Jiaqi", "Yudong", "Haoran", "Congying", "Zhangyi", "Xiandong", "Guanchen", "Hyeonah", "Sanghyeok",
    "Jiwoo", "Jeonghoon", "Byeongchan", "Cheonbok", "Minjoon", "Seungwoo", "Yuki", "Takashi", "Haruka", "Kenji",
    "Michael", "Vincent", "David", "Daniel", "Matthew", "Rajat", "Kunal", "Abhinav", "Anshuman", "Priya", "Arjun",
    "Ananya", "Rahul", "Sanjay", "Andrea", "Tamim", "Miguel", "Kfir", "Bassel", "Guy", "Sarah", "Emily", "Laura",
    "Anna", "Maria", "Julia", "Sophie", "Elena", "Olga", "Irina", "Thomas", "Peter", "Martin", "Stefan", "Lukas",
    "Felix", "Jonas", "Max", "Paul", "Simon", "Pierre", "Louis", "Antoine", "Marco", "Luca", "Giulia", "Søren",
    "Jürgen", "Zoë", "François", "José", "Łukasz", "Çağlar", "Anaïs", "Ólafur", "Björn", "Håkan", "Jérôme",
    "Gaël", "Małgorzata", "Dvořák", "Renée", "Núria", "Sebastián", "Thảo", "Ngọc", "Ahmet", "Mehmet", "Ayşe",
    "Fatma", "Omar", "Youssef", "Amir", "Reza", "Leila", "Nikolai"
]
LAST_NAMES = [
    "Wang", "Li", "Zhang", "Liu", "Chen", "Yang", "Huang", "Zhao", "Wu", "Zhou", "Xu", "Sun", "Ma", "Zhu", "Hu",
    "Guo", "He", "Lin", "Gao", "Luo", "Zheng", "Liang", "Xie", "Song", "Tang", "Han", "Feng", "Deng", "Cao",
    "Peng", "Xi", "Shi", "Fu", "Leng", "Jiang", "Gao", "Dai", "Kim", "Lee", "Park", "Choi", "Jung", "Kang", "Cho",
    "Yoon", "Son", "Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Sander", "Roulet", "Testa", "Asfour",
    "Sarabia", "Moudgil", "Faw", "Sen", "Talwar", "Kornowski", "Khashabi", "Zukerman", "Hamoud", "Levy",
    "Chhabra", "Smith", "Johnson", "Brown", "Miller", "Davis", "Wilson", "Taylor", "Clark", "Müller", "Schmidt",
    "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schölkopf", "Hauberg", "Nielsen", "Jørgensen",
    "Dubois", "Lefèvre", "Moreau", "Fournier", "Rossi", "Russo", "Bianchi", "García", "Martínez", "López",
    "Hernández", "González", "Pérez", "Kowalski", "Nowak", "Wiśniewski", "Dąbrowski", "Novák", "Svoboda",
    "Nguyễn", "Trần", "Lê", "Phạm", "Yılmaz", "Kaya", "Demir", "Şahin", "Öztürk", "Ivanov", "Petrov", "Smirnov",
    "Kuznetsov", "Gupta", "Sharma", "Singh", "Kumar", "Patel", "Reddy", "Iyer", "Cohen", "Katz", "Friedman",
    "Andersson"
]
ZH_SURNAMES = list("王李张刘陈杨黄赵吴周徐孙马朱胡郭何林高罗郑梁谢宋唐韩冯邓曹彭曾萧田董袁潘于蒋蔡余杜叶程魏苏吕丁任沈")
ZH_GIVEN = list("伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉萍红鹏辉建国志宇浩然子涵欣怡思远博文雨轩晨阳")
ZH_WORDS = [
    "方法", "模型", "框架", "算法", "研究", "分析", "优化", "训练", "数据", "网络", "性能",
    "实验", "结果", "学习", "表示", "特征", "推理", "生成", "任务", "预测", "检测", "识别",
    "理论", "收敛", "鲁棒性", "泛化", "效率", "可解释性", "大规模", "分布式", "自适应", "多模态",
    "知识", "图像", "文本", "语音", "视频", "对比", "扩散", "采样", "不确定性", "隐私", "安全",
    "公平性", "评估", "基准", "数据集", "参数", "梯度", "损失函数", "目标函数", "约束", "稀疏",
    "低秩", "高效", "显著", "提升", "改进", "验证", "实现", "应用", "问题", "挑战", "场景",
    "机制", "结构", "策略", "模块", "误差", "精度", "复杂度", "稳定性", "上界", "下界", "近似",
    "随机", "动态", "在线", "离线", "预训练", "微调", "蒸馏", "量化", "剪枝", "压缩", "加速",
    "推荐", "检索", "排序", "语义", "对齐", "编码器", "解码器", "智能体", "奖励", "环境"
]
ZH_TEMPLATES = (
    "本文提出了一种基于{t}的{w}{w}{w}。",
    "{t}是{w}领域的重要问题。",
    "现有{w}通常依赖{w}，难以兼顾{w}与{w}。",
    "我们设计了{w}{w}，并在{w}上进行了系统{w}。",
    "实验结果表明，该{w}在多个{w}上显著提升了{w}{w}。",
    "我们进一步从理论上分析了{w}与{w}之间的关系。",
    "此外，{w}{w}能够有效降低{w}{w}。",
    "与{w}相比，所提出的{t}{w}在{w}和{w}方面均具有优势。",
    "代码与{w}已公开。",
)
ZH_TITLES = (
    "基于{t}的{w}{w}方法",
    "面向{w}的{t}研究",
    "{t}中的{w}{w}问题",
    "一种用于{w}{w}的{t}框架",
    "{w}驱动的{t}{w}",
)
VENUES = [("NeurIPS", 18), ("ICML", 16), ("ICLR", 15), ("AAAI", 7), ("IJCAI", 4), ("ACL", 6), ("EMNLP", 5),
          ("CVPR", 8), ("ICCV", 3), ("ECCV", 3), ("KDD", 3), ("COLT", 2), ("AISTATS", 3), ("UAI", 2),
          ("TMLR", 3), ("JMLR", 2), ("arXiv", 20), ("计算机学报", 1), ("软件学报", 1), ("", 25)]
TITLE_SHAPES = [("{P}: {Q}", 22), ("{Q} for {R}", 14), ("{Q} via {R}", 10), ("On the {Q} of {R}", 6),
                ("Towards {Q}", 6), ("{Q} with {R}", 10), ("Learning {Q} from {R}", 5), ("{Q}", 12),
                ("Rethinking {Q}", 3), ("When {Q} Meets {R}", 2), ("{Q} in {R}", 10)]
