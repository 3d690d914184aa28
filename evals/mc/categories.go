package mc

// Subject → category maps, transcribed from each benchmark's official
// sources:
//   - MMLU: hendrycks/test categories.py (subject → subcategory →
//     category). Note the official map puts anatomy and the other
//     "health" subjects under "other"; lm-eval files anatomy under STEM.
//   - C-Eval: hkust-nlp/ceval subject_mapping.json (clinical_medicine has
//     no category there; the C-Eval paper lists it under Other), plus the
//     paper's C-Eval Hard subset of 8 subjects.
//   - CMMLU: haonan-li/CMMLU src/categories.py; "China specific" overlaps
//     the other four categories.

const (
	catSTEM       = "STEM"
	catHumanities = "Humanities"
	catSocial     = "Social Science"
	catOther      = "Other"
	catHard       = "Hard"
	catChina      = "China specific"
)

// MMLU's four categories, named as in the official results table.
const (
	mmluSTEM       = "STEM"
	mmluHumanities = "humanities"
	mmluSocial     = "social sciences"
	mmluOther      = "other (business, health, misc.)"
)

var mmluCategory = map[string]string{
	"abstract_algebra": mmluSTEM, "astronomy": mmluSTEM, "college_biology": mmluSTEM,
	"college_chemistry": mmluSTEM, "college_computer_science": mmluSTEM, "college_mathematics": mmluSTEM,
	"college_physics": mmluSTEM, "computer_security": mmluSTEM, "conceptual_physics": mmluSTEM,
	"electrical_engineering": mmluSTEM, "elementary_mathematics": mmluSTEM, "high_school_biology": mmluSTEM,
	"high_school_chemistry": mmluSTEM, "high_school_computer_science": mmluSTEM, "high_school_mathematics": mmluSTEM,
	"high_school_physics": mmluSTEM, "high_school_statistics": mmluSTEM, "machine_learning": mmluSTEM,

	"formal_logic": mmluHumanities, "high_school_european_history": mmluHumanities, "high_school_us_history": mmluHumanities,
	"high_school_world_history": mmluHumanities, "international_law": mmluHumanities, "jurisprudence": mmluHumanities,
	"logical_fallacies": mmluHumanities, "moral_disputes": mmluHumanities, "moral_scenarios": mmluHumanities,
	"philosophy": mmluHumanities, "prehistory": mmluHumanities, "professional_law": mmluHumanities,
	"world_religions": mmluHumanities,

	"econometrics": mmluSocial, "high_school_geography": mmluSocial, "high_school_government_and_politics": mmluSocial,
	"high_school_macroeconomics": mmluSocial, "high_school_microeconomics": mmluSocial, "high_school_psychology": mmluSocial,
	"human_sexuality": mmluSocial, "professional_psychology": mmluSocial, "public_relations": mmluSocial,
	"security_studies": mmluSocial, "sociology": mmluSocial, "us_foreign_policy": mmluSocial,

	"anatomy": mmluOther, "business_ethics": mmluOther, "clinical_knowledge": mmluOther,
	"college_medicine": mmluOther, "global_facts": mmluOther, "human_aging": mmluOther,
	"management": mmluOther, "marketing": mmluOther, "medical_genetics": mmluOther,
	"miscellaneous": mmluOther, "nutrition": mmluOther, "professional_accounting": mmluOther,
	"professional_medicine": mmluOther, "virology": mmluOther,
}

type cevalSubject struct {
	zh       string
	category string
}

var cevalSubjects = map[string]cevalSubject{
	"computer_network":           {"计算机网络", catSTEM},
	"operating_system":           {"操作系统", catSTEM},
	"computer_architecture":      {"计算机组成", catSTEM},
	"college_programming":        {"大学编程", catSTEM},
	"college_physics":            {"大学物理", catSTEM},
	"college_chemistry":          {"大学化学", catSTEM},
	"advanced_mathematics":       {"高等数学", catSTEM},
	"probability_and_statistics": {"概率统计", catSTEM},
	"discrete_mathematics":       {"离散数学", catSTEM},
	"electrical_engineer":        {"注册电气工程师", catSTEM},
	"metrology_engineer":         {"注册计量师", catSTEM},
	"high_school_mathematics":    {"高中数学", catSTEM},
	"high_school_physics":        {"高中物理", catSTEM},
	"high_school_chemistry":      {"高中化学", catSTEM},
	"high_school_biology":        {"高中生物", catSTEM},
	"middle_school_mathematics":  {"初中数学", catSTEM},
	"middle_school_biology":      {"初中生物", catSTEM},
	"middle_school_physics":      {"初中物理", catSTEM},
	"middle_school_chemistry":    {"初中化学", catSTEM},
	"veterinary_medicine":        {"兽医学", catSTEM},

	"college_economics":       {"大学经济学", catSocial},
	"business_administration": {"工商管理", catSocial},
	"marxism":                 {"马克思主义基本原理", catSocial},
	"mao_zedong_thought":      {"毛泽东思想和中国特色社会主义理论体系概论", catSocial},
	"education_science":       {"教育学", catSocial},
	"teacher_qualification":   {"教师资格", catSocial},
	"high_school_politics":    {"高中政治", catSocial},
	"high_school_geography":   {"高中地理", catSocial},
	"middle_school_politics":  {"初中政治", catSocial},
	"middle_school_geography": {"初中地理", catSocial},

	"modern_chinese_history":            {"近代史纲要", catHumanities},
	"ideological_and_moral_cultivation": {"思想道德修养与法律基础", catHumanities},
	"logic":                             {"逻辑学", catHumanities},
	"law":                               {"法学", catHumanities},
	"chinese_language_and_literature":   {"中国语言文学", catHumanities},
	"art_studies":                       {"艺术学", catHumanities},
	"professional_tour_guide":           {"导游资格", catHumanities},
	"legal_professional":                {"法律职业资格", catHumanities},
	"high_school_chinese":               {"高中语文", catHumanities},
	"high_school_history":               {"高中历史", catHumanities},
	"middle_school_history":             {"初中历史", catHumanities},

	"civil_servant":           {"公务员", catOther},
	"sports_science":          {"体育学", catOther},
	"plant_protection":        {"植物保护", catOther},
	"basic_medicine":          {"基础医学", catOther},
	"clinical_medicine":       {"临床医学", catOther},
	"urban_and_rural_planner": {"注册城乡规划师", catOther},
	"accountant":              {"注册会计师", catOther},
	"fire_engineer":           {"注册消防工程师", catOther},
	"environmental_impact_assessment_engineer": {"环境影响评价工程师", catOther},
	"tax_accountant": {"税务师", catOther},
	"physician":      {"医师资格", catOther},
}

// cevalHard is the C-Eval Hard subset (C-Eval paper, section 2.4).
var cevalHard = map[string]bool{
	"advanced_mathematics": true, "discrete_mathematics": true, "probability_and_statistics": true,
	"college_chemistry": true, "college_physics": true, "high_school_mathematics": true,
	"high_school_chemistry": true, "high_school_physics": true,
}

type cmmluSubject struct {
	zh         string
	categories []string
}

var cmmluSubjects = map[string]cmmluSubject{
	"agronomy":                              {"农学", []string{catOther}},
	"anatomy":                               {"解剖学", []string{catSTEM}},
	"ancient_chinese":                       {"古汉语", []string{catSocial, catChina}},
	"arts":                                  {"艺术学", []string{catHumanities}},
	"astronomy":                             {"天文学", []string{catSTEM}},
	"business_ethics":                       {"商业伦理", []string{catSocial}},
	"chinese_civil_service_exam":            {"中国公务员考试", []string{catSocial, catChina}},
	"chinese_driving_rule":                  {"中国驾驶规则", []string{catOther, catChina}},
	"chinese_food_culture":                  {"中国饮食文化", []string{catSocial, catChina}},
	"chinese_foreign_policy":                {"中国外交政策", []string{catSocial, catChina}},
	"chinese_history":                       {"中国历史", []string{catHumanities, catChina}},
	"chinese_literature":                    {"中国文学", []string{catHumanities, catChina}},
	"chinese_teacher_qualification":         {"中国教师资格", []string{catSocial, catChina}},
	"clinical_knowledge":                    {"临床知识", []string{catOther}},
	"college_actuarial_science":             {"大学精算学", []string{catSTEM}},
	"college_education":                     {"大学教育学", []string{catSocial}},
	"college_engineering_hydrology":         {"大学工程水文学", []string{catSTEM}},
	"college_law":                           {"大学法律", []string{catHumanities}},
	"college_mathematics":                   {"大学数学", []string{catSTEM}},
	"college_medical_statistics":            {"大学医学统计", []string{catSTEM}},
	"college_medicine":                      {"大学医学", []string{catOther}},
	"computer_science":                      {"计算机科学", []string{catSTEM}},
	"computer_security":                     {"计算机安全", []string{catOther}},
	"conceptual_physics":                    {"概念物理学", []string{catSTEM}},
	"construction_project_management":       {"建设工程管理", []string{catOther, catChina}},
	"economics":                             {"经济学", []string{catSocial}},
	"education":                             {"教育学", []string{catSocial}},
	"electrical_engineering":                {"电气工程", []string{catSTEM}},
	"elementary_chinese":                    {"小学语文", []string{catSocial, catChina}},
	"elementary_commonsense":                {"小学常识", []string{catOther, catChina}},
	"elementary_information_and_technology": {"小学信息技术", []string{catOther}},
	"elementary_mathematics":                {"初等数学", []string{catSTEM}},
	"ethnology":                             {"民族学", []string{catSocial, catChina}},
	"food_science":                          {"食品科学", []string{catOther}},
	"genetics":                              {"遗传学", []string{catSTEM}},
	"global_facts":                          {"全球事实", []string{catHumanities}},
	"high_school_biology":                   {"高中生物", []string{catSTEM}},
	"high_school_chemistry":                 {"高中化学", []string{catSTEM}},
	"high_school_geography":                 {"高中地理", []string{catSocial}},
	"high_school_mathematics":               {"高中数学", []string{catSTEM}},
	"high_school_physics":                   {"高中物理学", []string{catSTEM}},
	"high_school_politics":                  {"高中政治", []string{catSocial, catChina}},
	"human_sexuality":                       {"人类性行为", []string{catOther}},
	"international_law":                     {"国际法学", []string{catHumanities}},
	"journalism":                            {"新闻学", []string{catSocial}},
	"jurisprudence":                         {"法理学", []string{catHumanities}},
	"legal_and_moral_basis":                 {"法律与道德基础", []string{catOther}},
	"logical":                               {"逻辑学", []string{catHumanities}},
	"machine_learning":                      {"机器学习", []string{catSTEM}},
	"management":                            {"管理学", []string{catSocial}},
	"marketing":                             {"市场营销", []string{catSocial}},
	"marxist_theory":                        {"马克思主义理论", []string{catHumanities}},
	"modern_chinese":                        {"现代汉语", []string{catSocial, catChina}},
	"nutrition":                             {"营养学", []string{catOther}},
	"philosophy":                            {"哲学", []string{catHumanities}},
	"professional_accounting":               {"专业会计", []string{catSocial}},
	"professional_law":                      {"专业法学", []string{catHumanities}},
	"professional_medicine":                 {"专业医学", []string{catOther}},
	"professional_psychology":               {"专业心理学", []string{catSocial}},
	"public_relations":                      {"公共关系", []string{catSocial}},
	"security_study":                        {"安全研究", []string{catSocial}},
	"sociology":                             {"社会学", []string{catSocial}},
	"sports_science":                        {"体育学", []string{catOther}},
	"traditional_chinese_medicine":          {"中医中药", []string{catOther, catChina}},
	"virology":                              {"病毒学", []string{catSTEM}},
	"world_history":                         {"世界历史", []string{catHumanities}},
	"world_religions":                       {"世界宗教", []string{catHumanities}},
}
