package classify

import "testing"

// Security, expiry, human-error and capacity causes named in their own
// words in each language; the post's own front-matter tags count as label
// text; a failed connection attempt is no exhausted connection pool.
func TestCategoryCues(t *testing.T) {
	cases := []struct {
		name, md, want string
	}{
		{"ru security from front matter tags", "---\ntitle: Как встал склад\ntags:\n  - взлом\n  - шифровальщик\n---\n\n# Как встал склад\n\nВ понедельник утром склад перестал принимать заказы.\n\nМы восстановили файлы из резервной копии за два дня.\n", "security"},
		{"ru security words", "# Разбор: остановка бухгалтерии\n\n## Причина\n\nПричиной стал вредоносный файл во вложении письма: злоумышленники получили доступ к серверу и зашифровали диски.\n\n## Решение\n\n- Восстановили данные из копии.\n", "security"},
		{"en security words", "# Postmortem: the build farm went dark\n\n## Root cause\n\nThe root cause was ransomware that a phishing mail brought onto a build agent.\n\n## Resolution\n\n- We rebuilt the agents from clean images.\n", "security"},
		{"zh security words", "# 故障复盘：构建机全部停摆\n\n## 根本原因\n\n根本原因是一封钓鱼邮件带来的勒索病毒加密了构建机的磁盘。\n\n## 解决方案\n\n- 用干净镜像重建构建机。\n", "security"},
		{"zh expiry system time", "# 故障复盘：节点上的容器反复重建\n\n## 根本原因\n\n根本原因是节点的系统时间被调回了一天，组件按时间排序的缓存因此错乱。\n\n## 解决方案\n\n- 校准节点时间后重启组件。\n", "expiry"},
		{"en expiry token", "# Postmortem: the sync job stopped\n\n## Root cause\n\nThe root cause was that the service token expired on Sunday and nobody had set up its renewal.\n\n## Resolution\n\n- We issued a new token.\n", "expiry"},
		{"ru expiry", "# Разбор: отвалилась синхронизация\n\n## Причина\n\nПричина в том, что истёк срок действия ключа доступа, а его продление никто не настроил.\n\n## Решение\n\n- Выпустили новый ключ.\n", "expiry"},
		{"zh human error", "# 故障复盘：集群节点消失\n\n## 根本原因\n\n根本原因是运维同学误删了存放节点信息的命名空间。\n\n## 解决方案\n\n- 重新注册节点。\n", "human-error"},
		{"zh capacity throughput", "# 故障复盘：容器创建超时\n\n## 根本原因\n\n根本原因是数据盘的写入达到了云盘的吞吐上限，成为瓶颈。\n\n## 解决方案\n\n- 更换更高规格的云盘。\n", "capacity"},
		{"ru capacity pool", "# Разбор: API отвечало ошибками\n\n## Причина\n\nПричиной стал исчерпанный пул соединений к базе: запросы ждали свободного соединения.\n\n## Решение\n\n- Увеличили пул.\n", "capacity"},
		{"ru failed connection attempt is no capacity", "# Разбор: поиск не работал\n\n## Причина\n\nСервис не может подключиться к кэшу из-за ошибки в библиотеке клиента: она отправляет неверную команду входа.\n\n## Решение\n\n- Обновили библиотеку.\n", "software-defect"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := classifyMarkdown(t, tc.md).RootCause.Category; got != tc.want {
				t.Errorf("category = %q, want %q", got, tc.want)
			}
		})
	}
}
