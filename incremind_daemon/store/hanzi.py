"""Fold common traditional Chinese characters to simplified ones.

A character-level table of frequent one-to-one pairs, not a phrase-aware
converter: it exists so that a query typed in traditional characters still
finds a note written in simplified ones (and the reverse), at the cost of a
dictionary lookup per character. Characters not in the table pass through.
"""

from __future__ import annotations

# Each pair is traditional -> simplified; only characters whose simplified form
# is unambiguous are listed (for example 髮/發 -> 发 both fold to 发, so both match).
_TRADITIONAL = (
    "們個來對時國說會過這還後學與為發點業體現長開問題們經開關間電動機車東門見記話語讀寫認識讓請謝"
    "實際義務準備統計算設備網絡線條件數據庫資訊檔案專項結構測試執行環境變數設計參數標簽"
    "復習慣單詞錯誤驗證碼處理範圍內容隊列緩衝區調試輸入輸出導師課書館報紙雜誌劃規則釋義運轉"
    "應該節約費時間隔難題氣候溫暖雲飛鳥魚龍馬驗證護衛視聽覺圖書島嶼灣歷史風險質量價值觀觀點"
    "陽陰濕燈農醫藥師傅員廣場觀眾劇團鐘錶鍵盤顯示屏幕窗戶傳遞訊號碼頭邊緣層級屬性別稱號"
    "這麼樣種類搜尋檢索記憶體積極優勢劣勢勞動產權貿易區塊鏈終端伺服器連接埠協議遠程備份還原"
    "態勢場景啟動關閉結束組織總結歸納洞見頁面圖標檔較區別嗎兒兩滿無從會員當時後來紅綠藍黃黑"
)
_SIMPLIFIED = (
    "们个来对时国说会过这还后学与为发点业体现长开问题们经开关间电动机车东门见记话语读写认识让请谢"
    "实际义务准备统计算设备网络线条件数据库资讯档案专项结构测试执行环境变数设计参数标签"
    "复习惯单词错误验证码处理范围内容队列缓冲区调试输入输出导师课书馆报纸杂志划规则释义运转"
    "应该节约费时间隔难题气候温暖云飞鸟鱼龙马验证护卫视听觉图书岛屿湾历史风险质量价值观观点"
    "阳阴湿灯农医药师傅员广场观众剧团钟表键盘显示屏幕窗户传递讯号码头边缘层级属性别称号"
    "这么样种类搜寻检索记忆体积极优势劣势劳动产权贸易区块链终端伺服器连接埠协议远程备份还原"
    "态势场景启动关闭结束组织总结归纳洞见页面图标档较区别吗儿两满无从会员当时后来红绿蓝黄黑"
)

TRADITIONAL_TO_SIMPLIFIED: dict[str, str] = {t: s for t, s in zip(_TRADITIONAL, _SIMPLIFIED, strict=True) if t != s}
